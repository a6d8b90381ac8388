// A deadlock in one process while its peers wait for it at a collective (run
// under mpirun -np 2 and -np 4, tests/rank.cmake): in rank r's launch the put
// goes to @mail[r] and the get waits at @mail[0], so the get of every rank but
// rank 0 never completes (a local deadlock its process finds), while rank 0
// passes and waits for the others at the symmetric allocation after the launch.
// The channel has an index per rank of the largest run (4), so no rank stops on
// an index out of range before its deadlock is found. The run must end in every
// process with a deadlock named, not hang in MPI.
air.channel @mail [4]
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
