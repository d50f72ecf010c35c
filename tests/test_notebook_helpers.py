"""helpers.notebook: the reader's working copy and the progress line of model cells."""

import asyncio

from helpers.notebook import Progress, copy_course, progress


def test_working_copy_is_made_once_and_never_overwrites_a_readers_edits(tmp_path):
    source, dest = tmp_path / "notebooks", tmp_path / "notebooks-local"
    (source / "solutions").mkdir(parents=True)
    (source / "00_setup.ipynb").write_text("course 00")
    (source / "solutions" / "00_solutions.ipynb").write_text("course solutions")
    (source / ".ipynb_checkpoints").mkdir()
    (source / ".ipynb_checkpoints" / "00_setup-checkpoint.ipynb").write_text("checkpoint")

    copied = copy_course(dest, source)
    assert sorted(p.relative_to(dest).as_posix() for p in copied) == ["00_setup.ipynb",
                                                                      "solutions/00_solutions.ipynb"]
    (dest / "00_setup.ipynb").write_text("the reader's edits")
    (dest / "solutions" / "00_solutions.ipynb").unlink()  # reset one notebook by deleting it

    again = copy_course(dest, source)
    assert [p.relative_to(dest).as_posix() for p in again] == ["solutions/00_solutions.ipynb"]
    assert (dest / "00_setup.ipynb").read_text() == "the reader's edits"
    assert (dest / "solutions" / "00_solutions.ipynb").read_text() == "course solutions"


def test_progress_reports_elapsed_time_and_caps_the_bar_until_done():
    shown = Progress("turn 1", estimate_s=0.01, detail="900 prompt tokens")
    shown.started -= 5  # as if five seconds had passed
    assert shown.fraction() == 0.95 and shown.text() == "turn 1 (900 prompt tokens): 5 s of roughly 0 s"
    shown.finish()
    assert shown.fraction() == 1.0 and shown.text().startswith("turn 1 (900 prompt tokens): done in 5")
    assert "<progress" in shown.html()
    assert "of roughly" not in Progress("no estimate").text()


def test_progress_context_manager_finishes_even_when_the_work_fails():
    seen = []

    async def failing():
        async with progress("consolidation") as shown:
            seen.append(shown)
            raise RuntimeError("model went away")

    try:
        asyncio.run(failing())
    except RuntimeError:
        pass
    else:
        raise AssertionError("the error must propagate")
    assert seen[0].seconds is not None and seen[0].text().startswith("consolidation: done in")


def test_estimates_come_from_this_process_measured_speed_and_never_load_the_model(monkeypatch):
    from types import SimpleNamespace

    from helpers import llm
    from helpers.notebook import estimate_seconds, measured_speed

    monkeypatch.setattr(llm, "_embedded", None)
    assert measured_speed() is None and estimate_seconds(500) is None
    assert llm._embedded is None  # asking did not load the model
    record = SimpleNamespace(prompt_tokens=100, completion_tokens=20, prompt_seconds=2.0, generation_seconds=1.0)
    monkeypatch.setattr(llm, "_embedded", SimpleNamespace(history=[record]))
    assert measured_speed() == (50.0, 20.0)
    assert estimate_seconds(500, calls=2, output_tokens=60) == 2 * 500 / 50 + 60 / 20
