{
  "targets": [
    {
      "target_name": "poseidon8",
      "sources": ["native/addon.c", "native/poseidon8.c", "native/poseidon8-adx.c", "native/bhp.c"],
      "cflags": ["-std=c11", "-O3", "-Wall", "-Wextra", "-Werror"],
      "cflags!": ["-O2"],
      "xcode_settings": {
        "OTHER_CFLAGS": ["-std=c11", "-O3", "-Wall", "-Wextra", "-Werror"]
      }
    }
  ]
}
