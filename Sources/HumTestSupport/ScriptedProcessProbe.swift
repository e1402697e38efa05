import HumCore

/// A probe whose answers a test sets.
public struct ScriptedProcessProbe: ProcessProbe {
    public var me: ProcessOwner
    public var alive: Set<Int32>
    public init(me: ProcessOwner, alive: Set<Int32>) {
        self.me = me
        self.alive = alive
    }
    public func current() -> ProcessOwner { me }
    public func isAlive(_ owner: ProcessOwner) -> Bool { alive.contains(owner.pid) }
}
