"""The OneBot adapter's pure parts: CQ codes, events of both versions, addressing, and the settings table."""

from __future__ import annotations

from pathlib import Path

import mneme_onebot
import pytest
from mneme_onebot import cqcode, events
from mneme_onebot.events import Malformed, Message, Other
from mneme_onebot.settings import Settings

from mneme_core import Mneme
from mneme_core.plugins import make_manager
from mneme_core.runner import build_adapters

# -- CQ codes -------------------------------------------------------------------------------------------


def test_cq_escaping_round_trips_and_unescapes_in_one_pass() -> None:
    text = "a [b] & c, d &#91;"
    assert cqcode.escape(text) == "a &#91;b&#93; &amp; c, d &amp;#91;"
    assert cqcode.escape(text, in_parameter=True) == "a &#91;b&#93; &amp; c&#44; d &amp;#91;"
    assert cqcode.unescape(cqcode.escape(text)) == text
    assert cqcode.unescape(cqcode.escape(text, in_parameter=True)) == text
    assert cqcode.unescape("&amp;#91;") == "&#91;"  # not "[": one pass only


def test_cq_strings_read_into_segments_and_back() -> None:
    message = "hi &#91;all&#93; [CQ:at,qq=10001][CQ:image,file=a&#44;b.png,url=x] bye"
    segments = cqcode.parse(message)
    assert segments == [
        {"type": "text", "data": {"text": "hi [all] "}},
        {"type": "at", "data": {"qq": "10001"}},
        {"type": "image", "data": {"file": "a,b.png", "url": "x"}},
        {"type": "text", "data": {"text": " bye"}},
    ]
    assert cqcode.format_message(segments) == message
    assert cqcode.parse("[CQ:face,id=1") == [{"type": "text", "data": {"text": "[CQ:face,id=1"}}]
    assert cqcode.parse("[CQ:face]") == [{"type": "face", "data": {}}]


# -- events ---------------------------------------------------------------------------------------------


def v11(message: object, **extra: object) -> dict:
    frame = {"self_id": 3000, "post_type": "message", "message_type": "private", "message_id": 7}
    return {**frame, "user_id": 10001, "message": message, "sender": {"nickname": "Leo"}, **extra}


def test_v11_events_read_with_string_ids() -> None:
    found = events.parse(v11("[CQ:face,id=1]hello"))
    assert isinstance(found, Message)
    assert (found.version, found.self_id, found.user_id, found.message_id) == (11, "3000", "10001", "7")
    assert found.platform is None and found.is_direct and found.chat_id is None and found.user_name == "Leo"
    group = events.parse(
        v11("hi", message_type="group", group_id=777, sender={"nickname": "Leo", "card": "Leo (admin)"})
    )
    assert isinstance(group, Message) and group.chat_id == "777" and group.user_name == "Leo (admin)"
    without_message = v11(None, raw_message="from raw")
    del without_message["message"]
    assert events.read(events.parse(without_message)).text == "from raw"


def test_v12_events_read_with_their_platform() -> None:
    frame = {
        "type": "message",
        "detail_type": "channel",
        "self": {"platform": "QQ", "user_id": "bot"},
        "user_id": "u1",
        "guild_id": "g",
        "channel_id": "c",
        "message_id": "m",
        "message": "plain [CQ:at,qq=1] text",  # a v12 string is plain text, not CQ codes
    }
    found = events.parse(frame)
    assert isinstance(found, Message)
    assert (found.platform, found.chat_id, found.is_direct) == ("qq", "g/c", False)
    assert events.read(found).text == "plain [CQ:at,qq=1] text"


def test_what_is_not_a_message_to_answer_is_other() -> None:
    kinds = [
        events.parse({"post_type": "meta_event", "meta_event_type": "heartbeat", "self_id": 1}).kind,
        events.parse({"type": "meta", "detail_type": "status_update", "status": {}}).kind,
        events.parse({"post_type": "request", "request_type": "friend", "self_id": 1}).kind,
        events.parse(v11("me", user_id=3000)).kind,
        events.parse(v11("who", message_type="group", group_id=1, anonymous={"id": 1})).kind,
        events.parse(v11("hi", message_type="discuss")).kind,
    ]
    assert kinds == [
        "meta:heartbeat",
        "meta:status_update",
        "request:friend",
        "message:self",
        "message:anonymous",
        "message:discuss",
    ]
    assert all(isinstance(events.parse(v11("x", post_type=p)), Other) for p in ("notice", "message_sent"))


@pytest.mark.parametrize(
    "frame, says",
    [
        ([1, 2], "JSON object"),
        ({"hello": 1}, "neither a v11"),
        (v11("hi", user_id=None), "user_id"),
        (v11("hi", user_id=True), "user_id"),
        (v11("hi", user_id="a\nb"), "user_id"),
        (v11(42), "a message is"),
        (v11("hi", message_type="group"), "group_id"),
        ({"type": "message", "detail_type": "private", "user_id": "u", "message": []}, "self"),
        (
            {"type": "message", "detail_type": "private", "self": {"platform": "Q Q!", "user_id": "b"}},
            "platform",
        ),
    ],
)
def test_malformed_events_are_refused_saying_why(frame: object, says: str) -> None:
    with pytest.raises(Malformed, match=says):
        events.parse(frame)


# -- addressing -----------------------------------------------------------------------------------------


def group(segments: list) -> Message:
    found = events.parse(v11(segments, message_type="group", group_id=777))
    assert isinstance(found, Message)
    return found


def seg(kind: str, **data: object) -> dict:
    return {"type": kind, "data": data}


def test_a_mention_or_a_reply_addresses_the_bot_and_leaves_the_text() -> None:
    at_me = events.read(group([seg("at", qq="3000"), seg("text", text="  how are  you? ")]))
    assert at_me == events.Reading("how are you?", True)
    at_other = events.read(
        group([seg("at", qq="42", name="Ann"), seg("text", text=" look"), seg("at", qq="43")])
    )
    assert at_other == events.Reading("@Ann look@43", False)
    assert not events.read(group([seg("at", qq="all"), seg("text", text="all of you")])).addressed
    reply = group([seg("reply", id="900"), seg("text", text="yes")])
    assert events.read(reply, mine={"900"}).addressed and not events.read(reply, mine={"901"}).addressed
    v12_reply = events.parse(
        {
            "type": "message",
            "detail_type": "group",
            "group_id": "g",
            "self": {"platform": "wechat", "user_id": "bot"},
            "user_id": "u",
            "message": [seg("reply", message_id="old", user_id="bot"), seg("text", text="right?")],
        }
    )
    assert events.read(v12_reply) == events.Reading("right?", True)
    assert events.read(events.parse(v11("private is always to the bot"))).addressed


def test_a_group_message_starting_with_a_name_addresses_the_bot() -> None:
    names = ["Mio", "米奥"]
    said = {text: events.read(group([seg("text", text=text)]), names=names).addressed for text in (
        "Mio, hello", "mio", "米奥你好", "Miosotis is a flower", "hello Mio")}  # fmt: skip
    assert said == {
        "Mio, hello": True,
        "mio": True,
        "米奥你好": True,
        "Miosotis is a flower": False,
        "hello Mio": False,
    }


# -- settings -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, says",
    [
        ({"prot": 8080}, "adapters.onebot.prot: no such setting"),
        ({"port": 70000}, "adapters.onebot.port is a whole number"),
        ({"port": True}, "adapters.onebot.port"),
        ({"platform": "WeChat!"}, "adapters.onebot.platform"),
        ({"limit": 5}, "adapters.onebot.limit"),
        ({"action_timeout": 0}, "adapters.onebot.action_timeout"),
        ({"message_format": "xml"}, "adapters.onebot.message_format"),
        ({"names": "Mio"}, "adapters.onebot.names"),
        ({"access_token": 123}, "adapters.onebot.access_token"),
        ({"bridges": {"1": {"platfrom": "qq"}}}, r"adapters.onebot.bridges.1.platfrom: no such setting"),
        ({"bridges": {"1": {"api_url": "ftp://x"}}}, "api_url"),
        ({"bridges": {"1": {"version": 13}}}, "version is 11 or 12"),
    ],
)
def test_bad_settings_are_refused_by_name(table: dict, says: str) -> None:
    with pytest.raises((ValueError, TypeError), match=says):
        Settings.from_table(table)


def test_settings_come_from_the_companions_config(db_path: Path, clock) -> None:
    config = {
        "adapters": {
            "onebot": {
                "access_token": {"$env": "ONEBOT_TOKEN"},
                "platform": "qq",
                "bridges": {"wxid_bot": {"platform": "wechat", "api_url": "http://127.0.0.1:5700"}},
            }
        }
    }
    m = Mneme(db_path, space="settings", clock=clock, config=config)
    try:
        manager = make_manager(load_entry_points=False, environ={}, plugins=[mneme_onebot])
        (adapter,) = build_adapters(manager, ["onebot"], {"onebot": m.config.table("adapters.onebot")})
    finally:
        m.close()
    assert adapter.config.platform_for("wxid_bot") == "wechat"
    assert adapter.config.platform_for("10001") == "qq"
    assert adapter.config.bridge("wxid_bot").api_url == "http://127.0.0.1:5700"
    assert adapter.config.secrets({"ONEBOT_TOKEN": "abc"}) == ("abc", None)
    with pytest.raises(ValueError, match="ONEBOT_TOKEN is not set"):
        adapter.config.secrets({})
    with pytest.raises(ValueError, match="access_token is a secret"):
        Mneme(db_path, space="plain", clock=clock, config={"adapters": {"onebot": {"access_token": "plain"}}})
