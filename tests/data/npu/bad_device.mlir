// An unknown device name is refused at the name.
module {
  aie.device(npu9) {
    aiex.runtime_sequence() {
    }
  }
}
