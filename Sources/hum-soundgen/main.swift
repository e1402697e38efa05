// The sound generator; see issue 3.
print("hum-soundgen: not built yet")
