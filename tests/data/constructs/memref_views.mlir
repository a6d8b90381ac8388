// The views lowerings write: memref.reshape with its shape in a memref (from a
// constant global), memref.transpose of a 2-D buffer, and
// memref.extract_strided_metadata feeding memref.reinterpret_cast.
// VERIFY: ok
// RUN: @views
#map = affine_map<(d0, d1)[s0] -> (d1 * s0 + d0)>
module {
  memref.global "private" constant @shape_4x6 : memref<2xindex> = dense<[4, 6]>
  func.func @views(%arg0: memref<24xf32>, %arg1: memref<4x6xf32>, %arg2: memref<6x4xf32>, %arg3: memref<3x8xf32>) {
    %0 = memref.get_global @shape_4x6 : memref<2xindex>
    %reshape = memref.reshape %arg0(%0) : (memref<24xf32>, memref<2xindex>) -> memref<4x6xf32>
    memref.copy %reshape, %arg1 : memref<4x6xf32> to memref<4x6xf32>
    %transpose = memref.transpose %reshape (d0, d1) -> (d1, d0) : memref<4x6xf32> to memref<6x4xf32, #map>
    memref.copy %transpose, %arg2 : memref<6x4xf32, #map> to memref<6x4xf32>
    %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %arg0 : memref<24xf32> -> memref<f32>, index, index, index
    %reinterpret_cast = memref.reinterpret_cast %base_buffer to offset: [%offset], sizes: [3, 8], strides: [8, %strides] : memref<f32> to memref<3x8xf32, strided<[8, ?], offset: ?>>
    memref.copy %reinterpret_cast, %arg3 : memref<3x8xf32, strided<[8, ?], offset: ?>> to memref<3x8xf32>
    return
  }
}
