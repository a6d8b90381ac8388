// Top-level operations without a `module { }` wrapper.
air.channel @to_l1 [1, 1]
air.channel @from_l1 [1, 1]
func.func @copy_through_l1(%arg0: memref<16xf16>, %arg1: memref<16xf16>) {
  %c1 = arith.constant 1 : index
  %0 = air.launch async (%arg2) in (%arg3=%c1) args(%arg4=%arg0, %arg5=%arg1) : memref<16xf16>, memref<16xf16> {
    %1 = air.channel.put async @to_l1[] (%arg4[] [] []) : (memref<16xf16>)
    %2 = air.channel.get async @from_l1[] (%arg5[] [] []) : (memref<16xf16>)
    %3 = air.segment @seg async {
      %c1_0 = arith.constant 1 : index
      %4 = air.herd @herd async tile (%arg6, %arg7) in (%arg8=%c1_0, %arg9=%c1_0) {
        %async_token, %results = air.execute -> (memref<16xf16, 2>) {
          %alloc = memref.alloc() : memref<16xf16, 2>
          air.execute_terminator %alloc : memref<16xf16, 2>
        }
        %5 = air.channel.get async [%async_token] @to_l1[] (%results[] [] []) : (memref<16xf16, 2>)
        %6 = air.channel.put async [%5] @from_l1[] (%results[] [] []) : (memref<16xf16, 2>)
        %7 = air.execute [%6] {
          memref.dealloc %results : memref<16xf16, 2>
        }
      }
    }
    %8 = air.wait_all async [%1, %2, %3]
  }
  air.wait_all [%0]
  return
}
