// Scalar <16x16xi32, strided<[32, 1], offset: ?>, 2>, i32) -> ()
   
  func.func private @ext (memref<16x16xi32, strided<[33, // y[4096]mref<4096xf32>) {
    %0 = air1], offset:.launch async () in  ?>, 2>, i32) -> ()
     // attributesdule wd0)>
  // a(memref<16x16xi32, strided<[32, 1], offset: ?>, 2outs>, i32) -> ()
   
  func.func private @ext (memref<16x16xi32, strided<[32, 1],à™™^bb0Œš‹¾ ?>, 2>, i32) -> ()
     // attributesdul() args(%0 = air.segment1024xf32, 2„„e wd0)>
  // attribute„ir.ton
  
  f: sdule wd0)>
fe#set = afindfiexn