// One syntax error, on line 5 column 27 (tests/tools.cmake checks the
// reported location): a channel size must be an integer.
module {
  air.channel @good [2, 2]
  air.channel @broken [2, oops]
  func.func @f() {
    return
  }
}
