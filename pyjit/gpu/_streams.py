"""stream.async_done(), numba-cuda's awaitable of a stream's work, for every backend.

A future of the running asyncio loop, resolved with the stream once stream.query() says that
everything queued on it has run (an error the query raises, such as a kernel's fault, is the
future's exception). The loop polls the query, so no thread blocks in the driver and the other
coroutines run meanwhile; in the simulators the work is done when queued, so the future is
resolved at once.
"""
import asyncio

POLL_SECONDS = 1e-4


def async_done(stream):
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def poll():
        if future.done():          # cancelled by its awaiter
            return
        try:
            done = stream.query()
        except Exception as exc:   # noqa: BLE001 - the stream's error is the awaiter's
            future.set_exception(exc)
            return
        if done:
            future.set_result(stream)
        else:
            loop.call_later(POLL_SECONDS, poll)
    poll()
    return future
