#set = affine_set<(air.wagt"¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹¹  air.channÓßœhannel_type = "nmemref<pu_dma_streêain32erator
    |
    air.wai%m0 
memref<32inator[
    |
    air.wai%m0
  }
}
