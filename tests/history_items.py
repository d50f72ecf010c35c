"""Session history items as the Agents SDK stores them, for the trimming and compaction tests."""

import zlib


def user(text):
    return {"role": "user", "content": text}


def reply(text):
    # The id comes from the whole text, so two replies never share one ("answer 1", "answer 10").
    return {"type": "message", "role": "assistant", "status": "completed", "id": f"msg_{zlib.crc32(text.encode()):08x}",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def call(call_id, name="search", args="{}"):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": args}


def output(call_id, text="ok"):
    return {"type": "function_call_output", "call_id": call_id, "output": text}
