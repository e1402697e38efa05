import HumCore
import Testing

/// Achievements from plain values: each rule, its day by the day boundary (04:00), "earned by this round" as the
/// history with the round against the history without it, and properties over random histories.
@Suite struct AchievementsTests {
    /// 2026-11-02 (a Monday) at `hour`:`minute` UTC+1, plus `day` days.
    static func at(day: Int, hour: Int, minute: Int = 0) -> Timestamp {
        let monday = CivilDate(year: 2026, month: 11, day: 2)!.daysSinceEpoch * 86_400
        return Timestamp(
            epochSeconds: monday + Int64(day) * 86_400 + Int64(hour * 3600 + minute * 60) - 3600, offsetSeconds: 3600)
    }

    static func round(
        _ id: String, day: Int, hour: Int, minute: Int = 0, active: Int64 = 1500, status: RoundStatus = .completed,
        kind: RoundKind = .focus
    ) -> RoundRecord {
        RoundRecord(
            id: id, kind: kind, status: status, start: at(day: day, hour: hour, minute: minute), end: nil,
            plannedSeconds: 1500, activeSeconds: active, pausedSeconds: 0)
    }

    static let first = CivilDate(year: 2026, month: 11, day: 2)!
    static let four = DayBoundary(start: WallTime(minutes: 240)!)!

    func history(
        _ rounds: [RoundRecord], goal: Int64 = 3000, boundary: DayBoundary = .midnight, today: Int = 60,
        approvals: [Timestamp] = [], quotas: [String: ShieldQuota] = [:], distracting: [DistractingDay] = []
    ) -> AchievementHistory {
        AchievementHistory(
            rounds: rounds, approvals: approvals, quotas: quotas, distracting: distracting, goalSeconds: goal,
            boundary: boundary, today: Self.first.adding(days: Int64(today)))
    }

    func earned(_ h: AchievementHistory) -> [String: String] {
        var out: [String: String] = [:]
        for e in Achievements.earned(h) { out[e.achievement.rawValue] = e.date.description }
        return out
    }

    @Test func nothingEarnsNothing() {
        #expect(Achievements.earned(history([])).isEmpty)
        // Breaks, and focus rounds stopped or skipped, complete nothing.
        let h = history([
            Self.round("b", day: 0, hour: 9, kind: .shortBreak),
            Self.round("i", day: 0, hour: 10, status: .interrupted),
        ])
        #expect(earned(h)["first-round"] == nil)
    }

    @Test func theFirstRoundAndTheFirstGoalAreDatedByTheDayBoundary() {
        // 03:30 on Tuesday belongs to Monday with a day starting at 04:00.
        let rounds = [Self.round("a", day: 1, hour: 3, minute: 30), Self.round("b", day: 1, hour: 5)]
        #expect(earned(history(rounds))["first-round"] == "2026-11-03")
        #expect(earned(history(rounds, boundary: Self.four))["first-round"] == "2026-11-02")
        // Two rounds of 1500 s meet a goal of 3000 s on Tuesday by the calendar; split by 04:00, no day does.
        #expect(earned(history(rounds))["first-goal"] == "2026-11-03")
        #expect(earned(history(rounds, boundary: Self.four))["first-goal"] == nil)
    }

    @Test func aStreakOfSevenIsDatedOnItsSeventhDayAndAGapStartsOver() {
        var rounds: [RoundRecord] = []
        // Days 0-4 meet the goal, day 5 does not, days 6-12 do.
        for d in [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12] {
            rounds.append(Self.round("\(d)a", day: d, hour: 9))
            rounds.append(Self.round("\(d)b", day: d, hour: 10))
        }
        let e = earned(history(rounds))
        #expect(e["streak-7"] == "2026-11-14", "day 12, the seventh of the run from day 6")
        #expect(e["streak-30"] == nil)
        #expect(e["first-goal"] == "2026-11-02")
        // With no goal (0), any focus meets it.
        let light = (0..<7).map { Self.round("l\($0)", day: $0, hour: 9, active: 60) }
        #expect(earned(history(light, goal: 0))["streak-7"] == "2026-11-08")
        #expect(earned(history(light, goal: 3000))["streak-7"] == nil)
    }

    @Test func roundsAndHoursCountInTheOrderTheRoundsStarted() {
        // 100 completed rounds of 1 h over 50 days (two a day), given out of order.
        var rounds = (0..<100).map { Self.round("r\($0)", day: $0 / 2, hour: 9 + $0 % 2, active: 3600) }
        rounds.reverse()
        let e = earned(history(rounds, today: 80))
        #expect(e["rounds-100"] == "2026-12-21", "the 100th round is on day 49")
        #expect(e["hours-100"] == "2026-12-21")
        #expect(e["rounds-500"] == nil)
        // An interrupted round counts for hours, not for rounds.
        rounds[0].status = .interrupted
        let less = earned(history(rounds, today: 80))
        #expect(less["rounds-100"] == nil && less["hours-100"] == "2026-12-21")
    }

    @Test func tenApprovedContractsAreDatedByTheTenthApproval() {
        let approvals = (0..<10).map { Self.at(day: $0 * 3, hour: 3) }.reversed()
        #expect(earned(history([], approvals: Array(approvals)))["contracts-10"] == "2026-11-29")
        #expect(earned(history([], boundary: Self.four, approvals: Array(approvals)))["contracts-10"] == "2026-11-28")
        #expect(earned(history([], approvals: Array(approvals.dropFirst())))["contracts-10"] == nil)
    }

    @Test func aWeekUnderTheQuotaIsAWholeWeekOverWithEveryDayWithinIt() {
        // Set on Wednesday 4 November: the first whole week is 9-15 November.
        let video = ShieldQuota(dailySeconds: 1800, since: Self.at(day: 2, hour: 12))
        let quotas = ["video": video]
        func over(_ day: Int, _ seconds: Int64) -> DistractingDay {
            DistractingDay(shield: "video", date: Self.first.adding(days: Int64(day)), measuredSeconds: seconds)
        }
        #expect(earned(history([], today: 13, quotas: quotas))["week-under-quota"] == nil, "the week is not over")
        #expect(earned(history([], today: 14, quotas: quotas))["week-under-quota"] == "2026-11-15")
        // A day over the quota in that week spoils it; the next week counts.
        let spoilt = [over(3, 4000), over(10, 1801)]
        #expect(earned(history([], today: 21, quotas: quotas, distracting: spoilt))["week-under-quota"] == "2026-11-22")
        // Exactly the quota is within it.
        #expect(
            earned(history([], today: 14, quotas: quotas, distracting: [over(9, 1800)]))["week-under-quota"]
                == "2026-11-15")
        // A shrinking quota is read per day: 30m then 20m from its second week (from 11 November).
        let shrinking = [
            "video": ShieldQuota(dailySeconds: 1800, reduction: .absolute(seconds: 600), since: video.since)
        ]
        #expect(
            earned(history([], today: 14, quotas: shrinking, distracting: [over(10, 1500)]))["week-under-quota"]
                == nil)
        #expect(earned(history([], today: 30, quotas: [:]))["week-under-quota"] == nil, "no quota, no such week")
    }

    @Test func aRoundEarnsWhatTheHistoryHoldsWithItAndNotWithout() {
        let one = Self.round("one", day: 0, hour: 9)
        let two = Self.round("two", day: 0, hour: 10)
        #expect(Achievements.earned(by: "one", in: history([one])) == [.firstRound])
        // The second round of the day meets the goal: it earns that, and not the first round again.
        #expect(Achievements.earned(by: "two", in: history([one, two])) == [.firstGoal])
        // A round written again (a restart) earns nothing new: both histories hold it.
        #expect(Achievements.earned(by: "three", in: history([one, two])).isEmpty)
        // An interrupted round completes nothing.
        let stopped = Self.round("s", day: 1, hour: 9, active: 100, status: .interrupted)
        #expect(Achievements.earned(by: "s", in: history([one, two, stopped])).isEmpty)
    }

    /// Property: over random histories, (1) earning is monotonic (adding a round never takes an achievement away,
    /// nor moves its day later), (2) what a round earns is exactly what appears when it is added, and (3) each
    /// achievement is earned at most once.
    @Test func randomHistoriesEarnMonotonicallyAndOnce() {
        var rng = SplitMix64(seed: 24)
        for trial in 0..<200 {
            var rounds: [RoundRecord] = []
            let count = Int(rng.next() % 40)
            for i in 0..<count {
                let status: RoundStatus = rng.next() % 5 == 0 ? .interrupted : .completed
                rounds.append(
                    Self.round(
                        "t\(trial)-\(i)", day: Int(rng.next() % 20), hour: Int(rng.next() % 24),
                        minute: Int(rng.next() % 60), active: Int64(rng.next() % 3600), status: status))
            }
            let boundary = rng.next() % 2 == 0 ? DayBoundary.midnight : Self.four
            let goal = Int64(rng.next() % 3) * 1800
            for cut in 0..<rounds.count {
                let before = history(Array(rounds[..<cut]), goal: goal, boundary: boundary, today: 30)
                let after = history(Array(rounds[...cut]), goal: goal, boundary: boundary, today: 30)
                let had = earned(before)
                let has = earned(after)
                for (id, date) in had {
                    #expect(has[id] != nil && has[id]! <= date, "trial \(trial): \(id) kept, never later")
                }
                let new = Achievements.earned(by: rounds[cut].id, in: after).map(\.rawValue)
                let appeared = has.keys.filter { had[$0] == nil }
                // Removing the round from the whole history (not only the prefix) is what the player does; on a
                // prefix ending at this round they agree.
                #expect(Set(new) == Set(appeared), "trial \(trial) round \(cut)")
                let all = Achievements.earned(after).map(\.achievement)
                #expect(Set(all).count == all.count)
            }
        }
    }
}

@Suite struct NudgeScheduleTests {
    @Test func offByDefaultAndDueAnIntervalAfterTheQuietBegan() {
        var s = NudgeSchedule(every: 0, quietSince: 100)
        #expect(s.due == nil, "0 is off")
        s.every = 3600
        #expect(s.due == 3700)
        s.nudged(at: 3700)
        #expect(s.due == 7300)
    }

    @Test func neverDuringRoundsNorWhileAwayAndTheQuietRestartsAfterEither() {
        var s = NudgeSchedule(every: 3600, quietSince: 0)
        s.rounds(running: true, at: 1000)
        #expect(s.due == nil)
        s.rounds(running: false, at: 2500)
        #expect(s.due == 6100, "an interval after the rounds ended")
        s.session(away: true, at: 3000)
        #expect(s.due == nil)
        s.session(away: false, at: 5000)
        #expect(s.due == 8600, "an interval after the return")
        // Telling the same again moves nothing.
        s.session(away: false, at: 6000)
        s.rounds(running: false, at: 6000)
        #expect(s.due == 8600)
        // Away during rounds: the later of the two ends starts the quiet.
        s.rounds(running: true, at: 7000)
        s.session(away: true, at: 7100)
        s.rounds(running: false, at: 7200)
        #expect(s.due == nil)
        s.session(away: false, at: 7300)
        #expect(s.due == 10_900)
    }

    @Test func theNoticeAsksAndItsButtonsSayTheCommands() {
        let n = NudgeNotice.asking(seconds: 3600)
        #expect(n.summary == "How did the last hour go?")
        #expect(n.body == "hum log 1h --productive · hum log 1h --distracting")
        #expect(n.actions == [.productive, .distracting])
        #expect(NudgeNotice.asking(seconds: 5400).summary == "How did the last 1 h 30 min go?")
        let day = CivilDate(year: 2026, month: 12, day: 2)!
        #expect(NudgeNotice.logged(.productive, seconds: 3600, day: day).actions.isEmpty)
    }

    @Test func aRoundsNotificationAnnouncesItsAchievementsUnderTheGoal() {
        var n = FocusNotification(summary: "Focus 1/4 done", body: "Goal: draft", actions: [])
        n.announce([.firstRound])
        #expect(n.body == "Goal: draft\nAchievement: First round (a first focus round completed)")
        var bare = FocusNotification(summary: "x", body: "", actions: [])
        bare.announce([.rounds100])
        #expect(bare.body == "Achievement: 100 rounds (100 focus rounds completed)")
    }
}
