// A failing input (tests/bad_inputs/README.md): a channel size that is no integer.
module {
  air.channel @broken [2, oops]
  func.func @f() {
    return
  }
}
