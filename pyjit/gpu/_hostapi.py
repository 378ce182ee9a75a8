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


# numba-cuda's Device.<NAME>: the driver's device attributes by name, each with its
# CU_DEVICE_ATTRIBUTE code (read from the driver on a GPU) and the value the simulators' device
# reports (an sm_90 part of 132 multiprocessors, as their launches assume). The attributes the
# Device classes set themselves (MAX_THREADS_PER_BLOCK, MAX_BLOCK_DIM_*, MAX_GRID_DIM_*,
# MAX_SHARED_MEMORY_PER_BLOCK, WARP_SIZE, MULTIPROCESSOR_COUNT) are rows too, for the codes.
DEVICE_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": (1, 1024),
    "MAX_BLOCK_DIM_X": (2, 1024),
    "MAX_BLOCK_DIM_Y": (3, 1024),
    "MAX_BLOCK_DIM_Z": (4, 64),
    "MAX_GRID_DIM_X": (5, 2 ** 31 - 1),
    "MAX_GRID_DIM_Y": (6, 65535),
    "MAX_GRID_DIM_Z": (7, 65535),
    "MAX_SHARED_MEMORY_PER_BLOCK": (8, 48 * 1024),
    "TOTAL_CONSTANT_MEMORY": (9, 64 * 1024),
    "WARP_SIZE": (10, 32),
    "MAX_PITCH": (11, 2 ** 31 - 1),
    "MAX_REGISTERS_PER_BLOCK": (12, 65536),
    "CLOCK_RATE": (13, 1980000),                  # kHz
    "TEXTURE_ALIGNMENT": (14, 512),
    "GPU_OVERLAP": (15, 1),
    "MULTIPROCESSOR_COUNT": (16, 132),
    "KERNEL_EXEC_TIMEOUT": (17, 0),
    "INTEGRATED": (18, 0),
    "CAN_MAP_HOST_MEMORY": (19, 1),
    "COMPUTE_MODE": (20, 0),
    "SURFACE_ALIGNMENT": (30, 512),
    "CONCURRENT_KERNELS": (31, 1),
    "ECC_ENABLED": (32, 1),
    "PCI_BUS_ID": (33, 0),
    "PCI_DEVICE_ID": (34, 0),
    "TCC_DRIVER": (35, 0),
    "MEMORY_CLOCK_RATE": (36, 2619000),           # kHz
    "GLOBAL_MEMORY_BUS_WIDTH": (37, 5120),        # bits
    "L2_CACHE_SIZE": (38, 50 * 1024 * 1024),
    "MAX_THREADS_PER_MULTI_PROCESSOR": (39, 2048),
    "MAX_THREADS_PER_MULTIPROCESSOR": (39, 2048),
    "ASYNC_ENGINE_COUNT": (40, 5),
    "UNIFIED_ADDRESSING": (41, 1),
    "PCI_DOMAIN_ID": (50, 0),
    "COMPUTE_CAPABILITY_MAJOR": (75, 9),
    "COMPUTE_CAPABILITY_MINOR": (76, 0),
    "STREAM_PRIORITIES_SUPPORTED": (78, 1),
    "GLOBAL_L1_CACHE_SUPPORTED": (79, 1),
    "LOCAL_L1_CACHE_SUPPORTED": (80, 1),
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": (81, 228 * 1024),
    "MAX_REGISTERS_PER_MULTIPROCESSOR": (82, 65536),
    "MANAGED_MEMORY": (83, 1),
    "MULTI_GPU_BOARD": (84, 0),
    "MULTI_GPU_BOARD_GROUP_ID": (85, 0),
    "HOST_NATIVE_ATOMIC_SUPPORTED": (86, 0),
    "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO": (87, 2),
    "PAGEABLE_MEMORY_ACCESS": (88, 0),
    "CONCURRENT_MANAGED_ACCESS": (89, 1),
    "COMPUTE_PREEMPTION_SUPPORTED": (90, 1),
    "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM": (91, 1),
    "COOPERATIVE_LAUNCH": (95, 1),
    "COOPERATIVE_MULTI_DEVICE_LAUNCH": (96, 0),
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": (97, 227 * 1024),
}


def unknown_device_attribute(name):
    """The AttributeError for a Device attribute that is not one of the driver's."""
    return AttributeError(f"'Device' object has no attribute '{name}' (a device attribute is "
                          "one of the driver's CU_DEVICE_ATTRIBUTE_* names without the prefix, "
                          "such as MAX_REGISTERS_PER_BLOCK or L2_CACHE_SIZE)")
