/// ALSA, libsndfile and libsoxr adapters.
enum HumAudioModule {}
