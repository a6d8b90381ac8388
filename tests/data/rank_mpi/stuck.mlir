// A deadlock in one process while its peers wait for it at a collective (run
// under mpirun -np 2, tests/rank.cmake): in rank r's launch the put goes to
// @mail[r] and the get waits at @mail[0], so rank 1's get never completes (a
// local deadlock its process finds), while rank 0 passes and waits for rank 1 at
// the symmetric allocation after the launch. The run must end in every process
// with the deadlock named, not hang in MPI.
air.channel @mail [2]
func.func @stuck(%nr: index, %a: memref<4xf32>) {
  air.rank (%r) in (%n=%nr) args(%x=%a) : memref<4xf32> {
    air.launch () in () args(%y=%x, %me=%r) : memref<4xf32>, index {
      %z = arith.constant 0 : index
      %t = air.channel.put async @mail[%me] (%y[] [] []) : (memref<4xf32>)
      air.channel.get @mail[%z] (%y[] [] []) : (memref<4xf32>)
      air.wait_all [%t]
    }
    %h = memref.alloc() {air.symmetric} : memref<4xf32>
    memref.dealloc %h : memref<4xf32>
  }
  return
}
