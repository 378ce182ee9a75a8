"""Host-side pieces of numba-cuda's API that every backend shares.

stream.async_done(), the awaitable of a stream's work: a future of the running asyncio loop,
resolved with the stream once stream.query() says that everything queued on it has run (an
error the query raises, such as a kernel's fault, is the future's exception). The loop polls
the query, so no thread blocks in the driver and the other coroutines run meanwhile; in the
simulators the work is done when queued, so the future is resolved at once.

context.deallocations, numba-cuda's queue of frees: programs call its clear() after dropping
arrays to have their memory back at once. pyjit frees memory when the last array over it goes
(or when an outer defer_cleanup block ends), so there is nothing queued to clear.
"""
POLL_SECONDS = 1e-4


def async_done(stream):
    import asyncio      # here, not at the top: importing asyncio costs 50 ms that others need not pay
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


class Deallocations:
    """context.deallocations: nothing is pending (see the module's text)."""

    def clear(self):
        pass

    def __len__(self):
        return 0


DEALLOCATIONS = Deallocations()
