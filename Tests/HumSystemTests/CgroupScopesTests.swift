import Testing

@testable import HumSystem

@Suite struct CgroupScopesTests {
    @Test func theCgroup2MountIsFoundOnUnifiedAndHybridSystems() {
        let hybrid = """
            30 24 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
            31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
            32 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
            """
        #expect(CgroupScopes.mountPoint(hybrid) == "/sys/fs/cgroup/unified")
        let unified = "35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate"
        #expect(CgroupScopes.mountPoint(unified) == "/sys/fs/cgroup")
        #expect(CgroupScopes.mountPoint("36 24 0:30 / /mnt/my\\040cgroups rw - cgroup2 none rw") == "/mnt/my cgroups")
        #expect(CgroupScopes.mountPoint("32 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw") == nil)
        #expect(CgroupScopes.mountPoint("") == nil)
    }
}
