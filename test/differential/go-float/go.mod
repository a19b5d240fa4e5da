module goFloatOracle

go 1.19
