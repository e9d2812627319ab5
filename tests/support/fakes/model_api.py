"""A loopback fake of the OpenAI chat-completions API (POST /v1/chat/completions), in the real
wire format, driven in tests by the real `openai` client.

It refuses what the real API refuses (a missing or wrong bearer key: 401; no `model` or no
`messages`: 400) and can misbehave on demand: answer slowly, 429 with a Retry-After, 500,
a body that is not JSON, a 100 KB answer, or markup and foreign links. Its "model" is
deterministic: a summary is the post's first sentence with "[LANG]" in front, and words it
knows are translated (Cambricon → 寒武纪), so tests can see which language was asked for.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.fakes.threaded import ThreadedApp

KEY = "sk-test-feedwatch-0123456789"
WORDS = {
    "Simplified Chinese": {
        "Cambricon": "寒武纪",
        "Huawei": "华为",
        "joins": "加入",
        "Foundation": "基金会",
    },
    "Spanish": {"joins": "se une a", "foundation": "fundación"},
}
TAG = {"Simplified Chinese": "[zh]", "Spanish": "[es]", "English": "[en]"}
EXPLAINED = {
    "English": "The figure changed from {old} to {new}.",
    "Spanish": "La cifra cambió de {old} a {new}.",
    "Simplified Chinese": "数字从 {old} 改为 {new}。",
}


@dataclass
class ModelCall:
    target: str  # the language named in the instruction
    kind: str  # summary | translation
    title: str
    body: str
    at: float = field(default_factory=time.monotonic)


@dataclass
class FakeModelApi:
    mode: str = "ok"  # ok | slow | 429 | 500 | garbage | huge | hostile | inventive
    delay: float = 0.0
    calls: list[ModelCall] = field(default_factory=list)
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadedApp | None = None
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    def start(self) -> FakeModelApi:
        app = web.Application(client_max_size=4 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._completions)
        self.server = ThreadedApp(app).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.stop()

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return f"{self.server.base}/v1"

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            return _error(401, "Incorrect API key provided.", "invalid_api_key")
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "We could not parse the JSON body of your request.", None)
        if not body.get("model") or not isinstance(body.get("messages"), list):
            return _error(400, "you must provide a model parameter", "missing_required_parameter")
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        call = _read_call(system, user)
        with self.lock:
            self.calls.append(call)
        if self.mode == "slow" or self.delay:
            await asyncio.sleep(self.delay or 30)
        if self.mode == "429":
            return _error(429, "Rate limit reached.", "rate_limit_exceeded", {"Retry-After": "20"})
        if self.mode == "500":
            return _error(500, "The server had an error.", None)
        if self.mode == "garbage":
            return web.Response(
                text="<html>upstream proxy error</html>", content_type="application/json"
            )
        content = json.dumps(self._answer(call), ensure_ascii=False)
        if self.mode == "huge":
            content = json.dumps({"title": "T" * 2000, "summary": "Word and more words. " * 5000})
        if self.mode == "hostile":
            content = json.dumps(
                {
                    "title": '<a href="https://evil.example/">Click</a> <b>now</b>',
                    "summary": "Read it at https://evil.example/login now. <i>Really</i> &lt;b&gt; "
                    "</a><script>x</script> Fine.",
                }
            )
        return web.json_response(
            {
                "id": f"chatcmpl-{next(self._ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140},
            }
        )

    def _answer(self, call: ModelCall) -> dict[str, str]:
        if call.kind == "explanation":
            return {"summary": self._explain(call)}
        if call.kind == "opening":
            return {"summary": self._opening(call)}
        words = WORDS.get(call.target, {})

        def translate(text: str) -> str:
            for english, other in words.items():
                text = text.replace(english, other)
            return text

        first = re.split(r"(?<=[.!?])\s", call.body.strip(), maxsplit=1)[0]
        tag = TAG.get(call.target, "[?]")
        return {"title": f"{tag} {translate(call.title)}", "summary": f"{tag} {translate(first)}"}

    def _explain(self, call: ModelCall) -> str:
        """An edit in one sentence: its first and last numbers ("inventive": a number the
        edit does not hold, which the bot must refuse)."""
        numbers = re.findall(r"\$?\d+(?:[.,]\d+)*", call.body) or ["?"]
        old, new = numbers[0], "$99" if self.mode == "inventive" else numbers[-1]
        return EXPLAINED.get(call.target, "{old} → {new}").format(old=old, new=new)

    def _opening(self, call: ModelCall) -> str:
        """A digest's opening: a sentence per post of the first two, from its title, citing
        it ("inventive": a sentence citing post [9], which no digest of this size has)."""
        titles = re.findall(r"^\[(\d+)\] Title: (.*)$", call.body, re.MULTILINE)
        said = [f"{title.rstrip('.')} [{number}]." for number, title in titles[:2]]
        if self.mode == "inventive":
            said.append("Zorblax Systems raised 900 million dollars [9].")
        return " ".join(said)

    def of_kind(self, kind: str) -> list[ModelCall]:
        with self.lock:
            return [c for c in self.calls if c.kind == kind]


def _read_call(system: str, user: str) -> ModelCall:
    target = re.search(r"(?:in|into) (English|Spanish|Simplified Chinese)", system)
    kind = "translation" if system.startswith("Translate") else "summary"
    if system.startswith("In one short sentence"):
        kind = "explanation"
    if system.startswith("Write the opening paragraph of a news digest"):
        return ModelCall(target.group(1) if target else "?", "opening", "", user)
    title = re.search(r"^Title: (.*)$", user, re.MULTILINE)
    body = user.split("\n\n", 1)[1] if "\n\n" in user else ""
    body = body.removeprefix("Summary: ")
    return ModelCall(
        target.group(1) if target else "?", kind, title.group(1) if title else "", body
    )


def _error(
    status: int, message: str, code: str | None, headers: dict[str, str] | None = None
) -> web.Response:
    payload: dict[str, Any] = {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    }
    return web.json_response(payload, status=status, headers=headers)
