// A failing input (tests/bad_inputs/README.md): words, not operations; the parser
// must say so at the first one instead of keeping them as opaque text.
hello world
