// Differential oracle for src/encoding/goFloat.ts and src/encoding/floatEncode.ts: the same
// operations done by Go's own math/big, the library the notarizer's encoder is written with.
// Reads one JSON request per line on stdin, writes one answer per line on stdout.
//
//	{"op":"encode","data":"…","p":N}          → "ok <uint64>" or "err <class>"
//	{"op":"text","m":"<decimal>","e":E,"p":N}  → big.Float(prec 64) m×2^E, Text('f', N)
//
// The encode steps follow ledger-encoding.md §2 (the notarizer's float rule); this file is ours.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
)

type request struct {
	Op   string `json:"op"`
	Data string `json:"data"`
	P    int    `json:"p"`
	M    string `json:"m"`
	E    int    `json:"e"`
}

func encode(raw string, precision int) string {
	if precision > 12 {
		return "err precision"
	}
	s := strings.ToLower(raw)
	dot := strings.Index(s, ".")
	if dot == len(s)-1 {
		return "err parse"
	}
	if dot != -1 {
		s = strings.TrimRight(s, "0")
	}
	if dot == len(s)-1 {
		s = strings.TrimRight(s, ".")
	} else if dot != -1 && len(s[dot+1:]) > precision {
		return "err tooPrecise"
	}
	switch {
	case strings.Contains(s, "p-"):
		return "err decimalless"
	case strings.Contains(s, "e+"), strings.Contains(s, "e-"), strings.Contains(s, "p+"):
		return "err scientific"
	case strings.Contains(s, "-"):
		return "err negative"
	}
	x, _, err := big.ParseFloat(s, 10, 64, big.AwayFromZero)
	if err != nil {
		return "err parse"
	}
	if x.Sign() < 0 {
		return "err negative"
	}
	scale := uint64(1)
	for i := 0; i < precision; i++ {
		scale *= 10
	}
	magnitude := new(big.Float).SetUint64(scale)
	// in place, as the notarizer does: x keeps its precision (64) and mode (away from zero)
	y := x.Mul(x, magnitude)
	f, _ := y.Float64()
	u, _ := y.Uint64()
	z := y.Quo(y, magnitude)
	adjusted := precision
	if d := len(z.Text('f', precision)) - len(s); precision != 0 && len(s) != 0 && d != 0 {
		adjusted -= d
	}
	if s != z.Text('f', adjusted) {
		return "err lossy"
	}
	if f != math.Floor(f) {
		return "err tooPrecise"
	}
	return fmt.Sprintf("ok %d", u)
}

func text(m string, e int, p int) string {
	mi, ok := new(big.Int).SetString(m, 10)
	if !ok {
		return "bad request"
	}
	x := new(big.Float).SetPrec(64).SetInt(mi)
	x.SetMantExp(x, e)
	return x.Text('f', p)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<22)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(out, "bad request")
			continue
		}
		var answer string
		switch r.Op {
		case "encode":
			answer = encode(r.Data, r.P)
		case "text":
			answer = text(r.M, r.E, r.P)
		default:
			answer = "bad request"
		}
		fmt.Fprintln(out, answer)
	}
}
