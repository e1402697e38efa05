/// The terminal UI.
enum HumTerminalModule {}
