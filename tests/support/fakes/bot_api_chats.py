"""The fake Bot API's channels: chats found by `@username` (`getChat`), the bot's own membership
and rights in them (`getChatMember` for the bot), the updates a channel produces (the bot added
or removed, `my_chat_member`) and Telegram's chat picker answering (`chat_shared`).

Telegram refuses to post into a channel where the bot is not an administrator with the right to
post, and so does this fake: a test cannot pass on a send the real one would refuse.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

BOT_ID = 123456789  # the fake bot's user id (`getMe`)
ADMIN_RIGHTS = {  # what `getChatMember` says of an administrator, in groups and channels
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": True,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": True,
    "can_edit_stories": True,
    "can_delete_stories": True,
}


@dataclass
class Channel:
    id: int
    title: str
    username: str | None = None
    # user id (the bot's too) → "creator" | "administrator" | "member" | "left"
    members: dict[int, str] = field(default_factory=dict)
    can_post: set[int] = field(default_factory=set)  # administrators allowed to post


@dataclass
class ChannelDirectory:
    """Mixed into `FakeBotApi`: the channels it knows and what each member may do."""

    channels: dict[int, Channel] = field(default_factory=dict)
    _channel_updates: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    # --- scripting ---------------------------------------------------------------------------

    def add_channel(
        self,
        channel_id: int,
        title: str,
        *,
        username: str | None = None,
        bot: str = "administrator",
        bot_can_post: bool = True,
        admins: tuple[int, ...] = (),
    ) -> Channel:
        """A channel with the bot as `bot` (administrator, member, left) and these admins."""
        channel = Channel(channel_id, title, username)
        channel.members[BOT_ID] = bot
        if bot == "administrator" and bot_can_post:
            channel.can_post.add(BOT_ID)
        for user_id in admins:
            channel.members[user_id] = "administrator"
            channel.can_post.add(user_id)
        self.channels[channel_id] = channel
        return channel

    def set_bot_rights(self, channel_id: int, status: str, *, can_post: bool = True) -> int:
        """Change the bot's place in a channel and send the `my_chat_member` update Telegram
        sends for it (by the channel's first administrator)."""
        channel = self.channels[channel_id]
        old = self._member_json(channel, BOT_ID)
        channel.members[BOT_ID] = status
        channel.can_post.discard(BOT_ID)
        if status == "administrator" and can_post:
            channel.can_post.add(BOT_ID)
        admin = next((u for u, s in channel.members.items() if u != BOT_ID), 1)
        change = {
            "chat": self._chat_json(channel),
            "from": {"id": admin, "is_bot": False, "first_name": "Ada", "language_code": "en"},
            "date": int(time.time()),
            "old_chat_member": old,
            "new_chat_member": self._member_json(channel, BOT_ID),
        }
        return self.push_update({"my_chat_member": change})

    def push_chat_shared(
        self, chat_id: int, *, user_id: int, shared: int, request_id: int = 1
    ) -> int:
        """The user picked a chat with a `request_chat` keyboard button."""
        message = {
            "message_id": next(self._channel_updates) + 500_000,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private", "first_name": "Ada"},
            "from": {"id": user_id, "is_bot": False, "first_name": "Ada", "language_code": "en"},
            "chat_shared": {"request_id": request_id, "chat_id": shared},
        }
        return self.push_update({"message": message})

    def push_update(self, update: dict[str, Any]) -> int:  # provided by FakeBotApi
        raise NotImplementedError

    # --- answering ---------------------------------------------------------------------------

    def channel_member(self, chat_id: int, user_id: int) -> dict[str, Any] | None:
        """`getChatMember` in a known channel (None: not a channel of ours)."""
        channel = self.channels.get(chat_id)
        return self._member_json(channel, user_id) if channel is not None else None

    def channel_send_refusal(self, chat_id: int) -> tuple[int, str] | None:
        """What Telegram answers a post into a channel the bot may not post in."""
        channel = self.channels.get(chat_id)
        if channel is None or BOT_ID in channel.can_post:
            return None
        if channel.members.get(BOT_ID, "left") in ("left", "kicked"):
            return 403, "Forbidden: bot is not a member of the channel chat"
        return 400, "Bad Request: need administrator rights in the channel chat"

    def get_chat(self, reference: Any) -> dict[str, Any] | None:
        """`getChat` by id or `@username`; the bot sees only channels it is a member of."""
        for channel in self.channels.values():
            named = (
                isinstance(reference, str) and reference.lower() == f"@{channel.username}".lower()
            )
            same = str(reference) == str(channel.id)
            if (named or same) and channel.members.get(BOT_ID, "left") not in ("left", "kicked"):
                return self._chat_json(channel)
        return None

    def chat_json(self, chat_id: int) -> dict[str, Any] | None:
        channel = self.channels.get(chat_id)
        return self._chat_json(channel) if channel is not None else None

    @staticmethod
    def _chat_json(channel: Channel) -> dict[str, Any]:
        chat: dict[str, Any] = {"id": channel.id, "type": "channel", "title": channel.title}
        if channel.username:
            chat["username"] = channel.username
        return chat

    @staticmethod
    def _member_json(channel: Channel, user_id: int) -> dict[str, Any]:
        status = channel.members.get(user_id, "left")
        user = {"id": user_id, "is_bot": user_id == BOT_ID, "first_name": "Ada"}
        if status == "administrator":
            rights = {**ADMIN_RIGHTS, "can_post_messages": user_id in channel.can_post}
            rights["can_edit_messages"] = user_id in channel.can_post
            return {"status": status, "user": user, **rights}
        if status == "creator":
            return {"status": status, "user": user, "is_anonymous": False}
        return {"status": status, "user": user}
