"""The pure core: data in, data out. No network, no database, no clock, no Telegram.

Everything here is deterministic so it can be tested exhaustively (hypothesis) and reused by the
CLI preview, the poller and the benchmarks alike.
"""
