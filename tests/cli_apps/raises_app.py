def boom():
    raise ValueError("the app's own failure")


boom()
