"""Token economics (helpers.economics): memory injection stays flat while replay grows."""

from helpers.economics import economics_table, synthetic_history, token_economics


def test_synthetic_history_is_deterministic_and_each_prefix_is_a_shorter_history():
    long_t, long_n = synthetic_history(50)
    short_t, short_n = synthetic_history(10)
    assert long_t[:10] == short_t and [n.text for n in long_n[:10]] == [n.text for n in short_n]
    assert synthetic_history(50)[0] == long_t
    live_topics = [n.keywords[0] for n in long_n if n.status == "active"]
    assert len(live_topics) == len(set(live_topics))  # one live preference per topic


def test_memory_stays_flat_while_replay_grows_with_history():
    points = token_economics(50)
    assert [p.sessions for p in points] == list(range(1, 51))
    assert all(b.replay_tokens > a.replay_tokens for a, b in zip(points, points[1:]))
    assert max(p.memory_tokens for p in points) < 1.5 * points[0].memory_tokens
    assert points[-1].ratio > 10
    assert "50" in economics_table(points).splitlines()[-1]
