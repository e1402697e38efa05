import HumControl
import HumCore
import HumSystem
import HumTerminal

/// A second hum on a terminal: the one-line screen attached to the running player through its control socket.
enum RemoteLine {
    static func attach(_ client: ControlClient, context: CommandContext) throws -> Int32 {
        let loop = EventLoop()
        let screen = try RemoteScreen(
            loop: loop, player: RemotePlayer(client: client), terminal: Terminal(), color: context.useColor)
        loop.run()
        screen.close()
        if screen.playerEnded { context.stdout.write("the player has stopped\n") }
        return ExitCode.success
    }
}
