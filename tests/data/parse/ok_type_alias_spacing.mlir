// expect-ok
// Type aliases, irregular spacing, `module` with a name, quoted attribute names
// and multi-line operations.
!tok = !air.token
!buf = memref<8x8xi32, 2 : i32>
module @spaced {
  func.func   @f(  %arg0 :index )   {
    %t   =   air.token.alloc   :   !tok
    %w =air.wait_all   async[%t]{  "odd-name" = 1,
        plain }
    %a ,%b:2=air.execute[  %w ]->(!buf,index){
      %m=memref.alloc():!buf
      air.execute_terminator %m,%arg0:!buf,index
    }
    return
  }
}
