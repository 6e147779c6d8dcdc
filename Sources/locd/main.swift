print("locd: not yet")
