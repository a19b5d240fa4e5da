;; Skipping one JSON value while checking its grammar, sixteen bytes at a time (WebAssembly SIMD):
;; the fast path of the structural /blocks reader (walkBlocksJson.ts) over a block's authority.
;; Assembled into jsonSkip.wasm.b64.ts by `npx tsx scripts/gen-json-skip-wasm.ts`; test/unit/ledger/node/blocks/jsonSkip.test.ts
;; holds the committed bytes to this source.
;;
;; Memory: bytes [0, 4096) are the stack of open containers (1 = array, 2 = object); the body lies
;; at DATA = 4096 (read into this memory, or a window of it copied there: jsonSkip.ts), and the
;; caller writes at least 32 zero bytes after the bytes it may read. A zero
;; byte is never valid where this module reads (not whitespace, not a token, a control character
;; inside a string), so every loop stops at the window's end without a bounds check, and no load
;; reaches past the zeros (the widest is 16 bytes from a position at or before the first zero).
;;
;; skip(p) answers the position just after the value starting at p (after whitespace), or -1: the
;; value is not valid JSON, nests deeper than 4095, holds a raw control character in a string, or
;; runs past the window. The grammar is the JavaScript reader's (Scanner.value in walkBlocksJson.ts):
;; a -1 only sends the caller to that reader, which decides (and names the error), so this module
;; may refuse more than JSON refuses, never accept more.
(module
  (memory (export "memory") 1)

  ;; The first non-whitespace position at or after p.
  (func $ws (param $p i32) (result i32)
    (local $v v128)
    (local $m i32)
    (local $sp v128)
    (local $nl v128)
    (local $cr v128)
    (local $tab v128)
    ;; Most calls stop at once (no whitespace, or one space before a value).
    (if (i32.gt_u (i32.load8_u (local.get $p)) (i32.const 0x20)) (then (return (local.get $p))))
    ;; The splats held in locals (registers), not rebuilt in the loop.
    (local.set $sp (i8x16.splat (i32.const 0x20)))
    (local.set $nl (i8x16.splat (i32.const 0x0a)))
    (local.set $cr (i8x16.splat (i32.const 0x0d)))
    (local.set $tab (i8x16.splat (i32.const 0x09)))
    (loop $l
      (local.set $v (v128.load (local.get $p)))
      (local.set $m
        (i32.xor
          (i8x16.bitmask
            (v128.or
              (v128.or
                (i8x16.eq (local.get $v) (local.get $sp))
                (i8x16.eq (local.get $v) (local.get $nl)))
              (v128.or
                (i8x16.eq (local.get $v) (local.get $cr))
                (i8x16.eq (local.get $v) (local.get $tab)))))
          (i32.const 0xffff)))
      (if (i32.eqz (local.get $m))
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br $l))))
    (i32.add (local.get $p) (i32.ctz (local.get $m))))

  (func $isDigit (param $c i32) (result i32)
    (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))

  (func $isHex (param $c i32) (result i32)
    (i32.or
      (call $isDigit (local.get $c))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  ;; The rest of a string whose opening quote is just before p: the position after its closing
  ;; quote, or -1 (a bad escape, a raw control character, the window's end).
  (func $string (param $p i32) (result i32)
    (local $v v128)
    (local $m i32)
    (local $c i32)
    (local $quote v128)
    (local $backslash v128)
    (local $space v128)
    (local.set $quote (i8x16.splat (i32.const 0x22)))
    (local.set $backslash (i8x16.splat (i32.const 0x5c)))
    (local.set $space (i8x16.splat (i32.const 0x20)))
    (loop $l
      ;; A quote, a backslash or a control character among the next sixteen bytes.
      (local.set $v (v128.load (local.get $p)))
      (local.set $m
        (i8x16.bitmask
          (v128.or
            (v128.or (i8x16.eq (local.get $v) (local.get $quote)) (i8x16.eq (local.get $v) (local.get $backslash)))
            (i8x16.lt_u (local.get $v) (local.get $space)))))
      (if (i32.eqz (local.get $m))
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br $l)))
      (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $m))))
      (local.set $c (i32.load8_u (local.get $p)))
      (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (i32.add (local.get $p) (i32.const 1)))))
      (if (i32.ne (local.get $c) (i32.const 0x5c)) (then (return (i32.const -1))))
      ;; A backslash: \uXXXX, or one of " \ / b f n r t.
      (local.set $c (i32.load8_u offset=1 (local.get $p)))
      (if (i32.eq (local.get $c) (i32.const 0x75))
        (then
          (if (i32.eqz
                (i32.and
                  (i32.and (call $isHex (i32.load8_u offset=2 (local.get $p))) (call $isHex (i32.load8_u offset=3 (local.get $p))))
                  (i32.and (call $isHex (i32.load8_u offset=4 (local.get $p))) (call $isHex (i32.load8_u offset=5 (local.get $p))))))
            (then (return (i32.const -1))))
          (local.set $p (i32.add (local.get $p) (i32.const 6)))
          (br $l)))
      (if (i32.or
            (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))
              (i32.or (i32.eq (local.get $c) (i32.const 0x2f)) (i32.eq (local.get $c) (i32.const 0x62))))
            (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 0x66)) (i32.eq (local.get $c) (i32.const 0x6e)))
              (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x74)))))
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 2)))
          (br $l))))
    (i32.const -1))

  ;; A number at p (a minus or a digit there): the position after it, or -1.
  (func $number (param $p i32) (result i32)
    (local $c i32)
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (local.set $c (i32.load8_u (local.get $p)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $p (i32.add (local.get $p) (i32.const 1))))
      (else
        (if (i32.eqz (call $isDigit (local.get $c))) (then (return (i32.const -1))))
        (local.set $p (call $digits (i32.add (local.get $p) (i32.const 1))))))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2e))
      (then
        (if (i32.eqz (call $isDigit (i32.load8_u offset=1 (local.get $p)))) (then (return (i32.const -1))))
        (local.set $p (call $digits (i32.add (local.get $p) (i32.const 2))))))
    (if (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 0x20)) (i32.const 0x65))
      (then
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
          (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (if (i32.eqz (call $isDigit (i32.load8_u (local.get $p)))) (then (return (i32.const -1))))
        (local.set $p (call $digits (i32.add (local.get $p) (i32.const 1))))))
    (local.get $p))

  ;; The first position at or after p that is not a digit.
  (func $digits (param $p i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (call $isDigit (i32.load8_u (local.get $p)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $l)))
    (local.get $p))

  ;; A member name at p (a string) and its colon, whitespace between: the position after the
  ;; colon, or -1.
  (func $member (param $p i32) (result i32)
    (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x22)) (then (return (i32.const -1))))
    (local.set $p (call $string (i32.add (local.get $p) (i32.const 1))))
    (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
    (local.set $p (call $ws (local.get $p)))
    (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x3a)) (then (return (i32.const -1))))
    (i32.add (local.get $p) (i32.const 1)))

  (func (export "skip") (param $p i32) (result i32)
    (local $c i32)
    (local $d i32)
    (local $top i32)
    (local $depth i32)
    (local.set $p (call $ws (local.get $p)))
    (loop $value
      ;; A value starts at p.
      (local.set $c (i32.load8_u (local.get $p)))
      (block $after
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            (local.set $p (call $string (i32.add (local.get $p) (i32.const 1))))
            (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
            (br $after)))
        ;; { or [ (0x7b, 0x5b): their closing byte is two more (} 0x7d, ] 0x5d).
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b))
          (then
            (local.set $p (call $ws (i32.add (local.get $p) (i32.const 1))))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.add (local.get $c) (i32.const 2)))
              (then
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $after)))
            (if (i32.ge_u (local.get $depth) (i32.const 4095)) (then (return (i32.const -1))))
            (i32.store8 (local.get $depth) (select (i32.const 2) (i32.const 1) (i32.eq (local.get $c) (i32.const 0x7b))))
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (if (i32.eq (local.get $c) (i32.const 0x7b))
              (then
                (local.set $p (call $member (local.get $p)))
                (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
                (local.set $p (call $ws (local.get $p)))))
            (br $value)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (call $isDigit (local.get $c)))
          (then
            (local.set $p (call $number (local.get $p)))
            (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
            (br $after)))
        ;; true, null, false (read as little-endian words).
        (if (i32.or
              (i32.eq (i32.load (local.get $p)) (i32.const 0x65757274))
              (i32.eq (i32.load (local.get $p)) (i32.const 0x6c6c756e)))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (br $after)))
        (if (i32.and
              (i32.eq (i32.load (local.get $p)) (i32.const 0x736c6166))
              (i32.eq (i32.load8_u offset=4 (local.get $p)) (i32.const 0x65)))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 5)))
            (br $after)))
        (return (i32.const -1)))
      ;; After a value: close what ends here, or go on to the next element or member.
      (loop $close
        (if (i32.eqz (local.get $depth)) (then (return (local.get $p))))
        (local.set $top (i32.load8_u (i32.sub (local.get $depth) (i32.const 1))))
        (local.set $p (call $ws (local.get $p)))
        (local.set $d (i32.load8_u (local.get $p)))
        (if (i32.eq (local.get $d) (i32.const 0x2c))
          (then
            (local.set $p (call $ws (i32.add (local.get $p) (i32.const 1))))
            (if (i32.eq (local.get $top) (i32.const 2))
              (then
                (local.set $p (call $member (local.get $p)))
                (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
                (local.set $p (call $ws (local.get $p)))))
            (br $value)))
        (if (i32.eq (local.get $d) (select (i32.const 0x5d) (i32.const 0x7d) (i32.eq (local.get $top) (i32.const 1))))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (br $close)))
        (return (i32.const -1))))
    (unreachable))
)
