// RULE: symbol
// memref.get_global names a memref.global of its own module, with its type;
// symbols are unique within a module (nested modules are their own tables).
memref.global "private" constant @g : memref<2xi32> = dense<[1, 2]>
memref.global @g : memref<2xi32> = uninitialized // ERROR
func.func @f() {
  %0 = memref.get_global @missing : memref<2xi32> // ERROR
  %1 = memref.get_global @g : memref<2xf32> // ERROR
  %2 = memref.get_global @inner : memref<4xi8> // ERROR
  return
}
module @nested {
  memref.global @inner : memref<4xi8> = dense<0>
  memref.global @g : memref<3xi8> = dense<[1, 2, 3]>
  func.func @h() {
    %0 = memref.get_global @g : memref<3xi8>
    return
  }
}
