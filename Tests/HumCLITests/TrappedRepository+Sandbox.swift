import HumTestSupport

extension TrappedRepository {
    /// The armed repository in a sandbox's folder (see `TrappedRepository` in HumTestSupport).
    init(_ box: Sandbox) throws { try self.init(root: box.root) }
}
