// hum-soundgen: renders every built-in sound from its recipe and seed into Sounds/, with the manifest.
#if canImport(Glibc)
    import Glibc
#endif

exit(SoundGenerator.main(arguments: Array(CommandLine.arguments.dropFirst())))
