"""tonekit: real-time HDR tone mapping (the C++/CUDA library) for NumPy, PyTorch and CuPy arrays.

    import tonekit
    ldr = tonekit.map(hdr, op="reinhard", key=0.12)      # NumPy H x W x 3|4 float32/float16 -> uint8
    ldr = tonekit.map(tensor_on_gpu, op="drago")         # PyTorch / CuPy / DLPack on the GPU, no copy
    tonekit.operators()                                  # the registry: ids, parameters, ranges, papers

Errors are tonekit.Error subclasses (also ValueError, OSError, RuntimeError, MemoryError as fits)
whose message is the library's one line. Batches over a Dask cluster: tonekit.dask.map_files.
The operators and their parameters below are read from the registry when the module loads.
"""
import atexit as _atexit
from typing import NamedTuple, List

import numpy as _np

from . import _tonekit as _native
from ._tonekit import (BadInput, Error, InvalidArgument, IOFailure, NoDevice, OutOfMemory, RuntimeFailure,
                       Unsupported, DeviceBuffer)

__version__ = _native.__version__
__all__ = ["map", "ToneMapper", "operators", "operator", "read", "write", "quality", "synth", "scenes",
           "cuda_available", "backend_for", "Operator", "Param", "DeviceBuffer", "Error", "InvalidArgument",
           "BadInput", "IOFailure", "Unsupported", "NoDevice", "OutOfMemory", "RuntimeFailure"]

_OUTPUT_DTYPES = ("uint8", "uint16", "float16", "float32")
_ITEMSIZE = {"uint8": 1, "uint16": 2, "float16": 2, "float32": 4}

# The cached device mappers go before the CUDA runtime is torn down at exit.
_atexit.register(_native.release_device_mappers)


# ---- the registry ----

class Param(NamedTuple):
    """One parameter of an operator (or a common one: `common` True), as registered."""
    name: str
    default: float
    min: float
    max: float
    help: str
    integer: bool
    common: bool


class Operator(NamedTuple):
    """One registered operator: id, title, paper, description, locality and parameters."""
    id: str
    title: str
    citation: str
    description: str
    locality: str
    params: List[Param]


def operators() -> List[Operator]:
    """Every registered operator, in registry order (what `tonekit ops` prints)."""
    return [Operator(o["id"], o["title"], o["citation"], o["description"], o["locality"],
                     [Param(**p) for p in o["params"]]) for o in _native.operators()]


def operator(op_id: str) -> Operator:
    """The descriptor of one operator; InvalidArgument (the registry's message) for an unknown id."""
    _native.validate(op_id, {})
    return next(o for o in operators() if o.id == op_id)


def cuda_available() -> bool:
    """True when this build has CUDA and a device is present."""
    return _native.cuda_available()


def backend_for(backend: str = "auto") -> str:
    """The backend a host call with `backend` runs on here: cpu, or cuda (auto: cuda when available)."""
    if backend == "auto":
        return "cuda" if _native.cuda_available() else "cpu"
    if backend not in ("cpu", "cuda"):
        raise InvalidArgument(f"unknown backend '{backend}' (known: cpu, cuda, auto)")
    return backend


# ---- arrays ----

def _dtype_name(dtype) -> str:
    text = str(dtype).replace("torch.", "")
    try:
        name = _np.dtype(dtype).name
    except TypeError:
        try:
            name = _np.dtype(text).name
        except TypeError:
            name = text
    if name not in _OUTPUT_DTYPES:
        raise InvalidArgument(f"unknown output dtype '{text}' (known: {', '.join(_OUTPUT_DTYPES)})")
    return name


def _stream_handle(stream) -> int:
    """A CUDA stream as the integer handle: an int, a torch.cuda.Stream (cuda_stream) or a CuPy
    Stream (ptr). 0 is the legacy default stream."""
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


def _family(obj) -> str:
    module = type(obj).__module__ or ""
    if isinstance(obj, _np.ndarray):
        return "numpy"
    if module.startswith("torch"):
        return "torch"
    if module.startswith("cupy"):
        return "cupy"
    if hasattr(obj, "__cuda_array_interface__"):
        return "cai"
    if hasattr(obj, "__dlpack__"):
        return "dlpack"
    return "other"


class _DeviceFrame:
    """A CUDA image read from its producer: pointer, shape, row stride, dtype, device, the stream to
    run on, and how to allocate a result of the same family on the same device."""
    __slots__ = ("ptr", "height", "width", "channels", "row_stride", "dtype", "device", "stream", "family",
                 "source", "keep")


def _check_layout(shape, strides, itemsize, who):
    if len(shape) != 3 or shape[2] not in (3, 4) or shape[0] < 1 or shape[1] < 1:
        raise InvalidArgument(f"{who}: expected an H x W x 3 or H x W x 4 image, got shape {tuple(shape)}")
    return (strides[2] == itemsize and strides[1] == itemsize * shape[2]
            and strides[0] >= itemsize * shape[2] * shape[1])


_CUDA_PRESENT = []  # cuda_available(), asked once: the answer does not change within a process


def _device_frame(image, stream, who) -> "_DeviceFrame":
    if not _CUDA_PRESENT:
        _CUDA_PRESENT.append(_native.cuda_available())
    if not _CUDA_PRESENT[0]:
        raise NoDevice(f"{who}: the image is in CUDA memory, but no CUDA device is available "
                       "(no GPU, no driver, or this build of tonekit has no CUDA backend)")
    f = _DeviceFrame()
    f.family = _family(image)
    f.keep = None
    if f.family == "torch":
        import torch
        dt = str(image.dtype).replace("torch.", "")
        itemsize = image.element_size()
        shape = tuple(image.shape)
        if len(shape) == 3 and not _check_layout(shape, [s * itemsize for s in image.stride()], itemsize, who):
            image = image.contiguous()
        _check_layout(tuple(image.shape), [s * itemsize for s in image.stride()], itemsize, who)
        f.ptr = image.data_ptr()
        f.row_stride = image.stride(0) * itemsize
        f.device = image.device.index if image.device.index is not None else torch.cuda.current_device()
        f.stream = (_stream_handle(stream) if stream is not None
                    else torch.cuda.current_stream(f.device).cuda_stream)
    elif f.family == "cupy":
        import cupy
        dt = image.dtype.name
        itemsize = image.dtype.itemsize
        if len(image.shape) == 3 and not _check_layout(image.shape, image.strides, itemsize, who):
            image = cupy.ascontiguousarray(image)
        _check_layout(image.shape, image.strides, itemsize, who)
        f.ptr = image.data.ptr
        f.row_stride = image.strides[0]
        f.device = image.device.id
        f.stream = _stream_handle(stream) if stream is not None else cupy.cuda.get_current_stream().ptr
    elif f.family == "cai":
        cai = image.__cuda_array_interface__
        dt = _np.dtype(cai["typestr"]).name
        itemsize = _np.dtype(cai["typestr"]).itemsize
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        if strides is None and len(shape) == 3:
            strides = (shape[1] * shape[2] * itemsize, shape[2] * itemsize, itemsize)
        if not _check_layout(shape, strides or (0, 0, 0), itemsize, who):
            raise InvalidArgument(f"{who}: the CUDA array's channels and pixels must be packed (rows may be strided); "
                                  f"got strides {strides}")
        f.ptr = int(cai["data"][0])
        f.row_stride = strides[0]
        f.device = -1
        # Version 3's 'stream' is where the producer made the data: running on it orders the map after.
        cai_stream = cai.get("stream")
        f.stream = _stream_handle(stream) if stream is not None else (int(cai_stream) if cai_stream else 0)
    else:  # DLPack on the GPU
        f.stream = _stream_handle(stream) if stream is not None else 1  # DLPack: 1 = the legacy default stream
        view = _native.DLView(image.__dlpack__(stream=f.stream))
        if view.device_type not in (2, 13):  # kDLCUDA, kDLCUDAManaged
            raise InvalidArgument(f"{who}: the DLPack tensor is not on a CUDA device (device type {view.device_type})")
        dt = view.dtype
        itemsize = _ITEMSIZE.get(dt, 1)
        if not _check_layout(view.shape, view.strides, itemsize, who):
            raise InvalidArgument(f"{who}: the tensor's channels and pixels must be packed (rows may be strided); "
                                  f"got strides {view.strides} bytes")
        f.ptr = view.ptr
        f.row_stride = view.strides[0]
        f.device = view.device_id
        f.keep = view
        f.family = "dlpack"
    f.height, f.width, f.channels = (int(image.shape[0]), int(image.shape[1]), int(image.shape[2])) \
        if f.family in ("torch", "cupy") else (int(s) for s in (shape if f.family == "cai" else view.shape))
    f.dtype = dt
    f.source = image
    return f


def _device_output(f: "_DeviceFrame", dtype: str, channels: int):
    """A result of the input's family on its device: (object, pointer)."""
    shape = (f.height, f.width, channels)
    if f.family == "torch":
        import torch
        out = torch.empty(shape, dtype=getattr(torch, dtype), device=f.source.device)
        if f.stream != torch.cuda.current_stream(f.source.device).cuda_stream:
            # The caching allocator frees in the current stream's order: the map runs on another
            # one, so both the result and the input (perhaps a contiguous copy made here) wait for it.
            other = torch.cuda.ExternalStream(f.stream, device=f.source.device)
            out.record_stream(other)
            f.source.record_stream(other)
        return out, out.data_ptr()
    if f.family == "cupy":
        import cupy
        with cupy.cuda.Device(f.device):
            out = cupy.empty(shape, dtype=dtype)
        return out, out.data.ptr
    device = f.device if f.device >= 0 else _native.device_of(f.ptr)
    out = DeviceBuffer(device, f.height, f.width, channels, dtype)
    out._set_stream(f.stream)
    return out, out.ptr


def _host_array(image):
    """NumPy view of a host image (a CPU tensor or a DLPack CPU producer without a copy), and a
    function that gives the result the input's family back."""
    family = _family(image)
    if family == "numpy":
        return image, lambda a: a
    if family == "torch" and not image.is_cuda:
        import torch
        return image.numpy(), torch.from_numpy
    if family == "dlpack" and hasattr(image, "__dlpack_device__") and image.__dlpack_device__()[0] == 1:
        return _np.from_dlpack(image), lambda a: a
    return _np.asarray(image), lambda a: a


def _on_device(image) -> bool:
    family = _family(image)
    if family == "torch":
        return bool(image.is_cuda)
    if family in ("cupy", "cai"):
        return True
    if family == "dlpack" and hasattr(image, "__dlpack_device__"):
        return image.__dlpack_device__()[0] != 1
    return False


# ---- mapping ----

def map(image, op: str = "reinhard", backend: str = "auto", *, dtype="uint8", channels=None, stream=None,
        glare: float = 0.0, glare_threshold=None, glare_radius=None, **params):
    """Tone maps one HDR image with a registered operator; `params` are the operator's parameters
    (NAME=VALUE as `tonekit map --set` takes them; ranges checked by the registry).

    image: H x W x 3 or 4, float32 or float16 (scene-linear BT.709).
      - NumPy (or a CPU PyTorch tensor): read where it lies when channels and pixels are packed
        (C-contiguous, or rows strided: a crop); other layouts and half RGB are copied once. Runs on
        `backend` (cpu, cuda, auto) through the host API; returns NumPy (a CPU tensor for a tensor).
      - On the GPU (PyTorch, CuPy, __cuda_array_interface__ or DLPack): mapped in place by the device
        ToneMapper on the caller's stream (the current PyTorch / CuPy stream, the interface's
        'stream', or `stream=`), asynchronously, with no host copy; float16 needs 4 channels. Returns
        the same family on the same device (a tonekit.DeviceBuffer, which exports both protocols,
        for other producers). `backend` applies to host arrays: a CUDA array maps on its device.
    dtype: uint8 (default), uint16 (display-encoded: sRGB unless gamma is set) or float16/float32
      (linear display values in [0, 1], for HDR outputs). channels: 3 or 4 (default: the input's).
    glare, glare_threshold, glare_radius: as `tonekit map --glare` (host arrays only).
    The GIL is released while the library works. Errors: tonekit.InvalidArgument (bad shape, dtype,
    unknown operator or parameter, out-of-range value), tonekit.NoDevice (no CUDA), ...
    """
    out_dtype = _dtype_name(dtype)
    if _on_device(image):
        if glare:
            raise InvalidArgument("tonekit.map: glare is available for host arrays only (use tonekit map or ToneMapper)")
        f = _device_frame(image, stream, "tonekit.map")
        ch = channels or f.channels
        out, out_ptr = _device_output(f, out_dtype, ch)
        _native.map_device(f.ptr, f.height, f.width, f.channels, f.row_stride, f.dtype, f.device, out_ptr,
                           f.width * ch * _ITEMSIZE[out_dtype], out_dtype, ch, f.stream, op, params)
        return out
    array, back = _host_array(image)
    return back(_native.map_host(array, op, backend, out_dtype, channels or 0, params, float(glare),
                                 glare_threshold, glare_radius))


class ToneMapper:
    """A sequence mapper: temporal adaptation of the key and the peak across calls
    (tonekit/temporal.hpp: tau_brighten 0.1 s, tau_darken 0.4 s, scene cuts at 3-5 stops), the
    state readable (`state`), resettable (`reset()`) and seedable (`seed(state)`).

        tm = tonekit.ToneMapper("reinhard", key=0.18, temporal_params={"tau_darken": 0.6})
        for frame in frames: out = tm.map(frame, dt=1 / 30)

    Host frames (NumPy) run on `backend` through tone_map_temporal; GPU frames (PyTorch, CuPy,
    DLPack) on one device ToneMapper made for the first frame, on the caller's stream. The state
    moves along when the frames switch between host and device.
    """

    def __init__(self, op: str = "reinhard", backend: str = "auto", *, dtype="uint8", channels=None,
                 temporal_params=None, **params):
        self._op, self._params = op, dict(params)
        self._dtype, self._channels = _dtype_name(dtype), channels
        temporal = dict(temporal_params or {})
        self._host = _native.HostSequence(op, self._params, temporal, backend)
        self._device = _native.DeviceSequence(op, self._params, temporal)
        self._last = "host"

    def _switch(self, where):
        if where != self._last:
            src, dst = (self._host, self._device) if where == "device" else (self._device, self._host)
            state = src.state()
            if state["seeded"]:
                dst.set_state(state)
            else:
                dst.reset()
            self._last = where

    def map(self, frame, dt: float = 1 / 24, *, stream=None):
        """Maps the next frame, `dt` seconds after the previous one (the first frame after creation
        or reset() seeds the state)."""
        if _on_device(frame):
            self._switch("device")
            f = _device_frame(frame, stream, "ToneMapper.map")
            ch = self._channels or f.channels
            out, out_ptr = _device_output(f, self._dtype, ch)
            self._device.map(f.ptr, f.height, f.width, f.channels, f.row_stride, f.dtype, f.device, out_ptr,
                             f.width * ch * _ITEMSIZE[self._dtype], self._dtype, ch, f.stream, float(dt))
            return out
        self._switch("host")
        array, back = _host_array(frame)
        return back(self._host.map(array, self._dtype, self._channels or 0, float(dt)))

    def set_params(self, op: str = None, **params):
        """Another operator or other parameters from the next frame on (the state is kept)."""
        self._op = op or self._op
        self._params = dict(params) if op else {**self._params, **params}
        self._host.set_params(self._op, self._params)
        self._device.set_params(self._op, self._params)

    @property
    def state(self) -> dict:
        """The temporal state: seeded, last_cut, log_key, log_peak, last_frame_log_key, frames, cuts
        (on the device: waits for the last frame)."""
        return (self._device if self._last == "device" else self._host).state()

    def reset(self):
        """Forgets the state: the next frame seeds it."""
        self._host.reset()
        self._device.reset()

    def seed(self, state: dict):
        """Continues from a state (one read from `state`, or with log_key and log_peak set)."""
        (self._device if self._last == "device" else self._host).set_state(dict(state))


# ---- files, metrics, scenes ----

def read(path) -> _np.ndarray:
    """Reads an HDR image (OpenEXR, Radiance RGBE, PFM; chosen by the file's magic bytes) as
    H x W x 3|4 float32, through the CLI's readers. BadInput for damaged files."""
    return _native.read(str(path))


def write(path, image, *, bits: int = 0, jpeg_quality: int = 92, png_level: int = 1):
    """Writes an image with the CLI's writers, chosen by the extension, atomically (a temporary file
    renamed into place): uint8/uint16 to .png (.jpg: uint8); float32/float16 to .exr (half unless
    bits=32), .hdr, .pfm."""
    array, _ = _host_array(image)
    _native.write(str(path), array, int(bits), int(jpeg_quality), int(png_level))


def quality(hdr, ldr, backend: str = "auto") -> dict:
    """TMQI (q, s, n, per scale), FSITM (per channel, mean) and colour fidelity (CIEDE2000 mean and
    p95, hue shift) of a tone-mapped uint8/uint16 image against its HDR source, as
    `tonekit quality --json` computes them; 'backend' names where they ran."""
    return _native.quality(_host_array(hdr)[0], _host_array(ldr)[0], backend)


def synth(scene: str, width: int, height: int) -> _np.ndarray:
    """A procedural HDR scene (tonekit synth; ids from scenes()) as H x W x 3 float32."""
    return _native.synth(scene, int(width), int(height))


def scenes() -> List[str]:
    """The synthetic scenes' ids."""
    return list(_native.scenes())


def _registry_doc() -> str:
    lines = ["", "Operators (from the registry):"]
    for o in operators():
        own = ", ".join(f"{p.name}={p.default:g} [{p.min:g}, {p.max:g}]" for p in o.params if not p.common)
        lines.append(f"  {o.id}: {o.title} ({o.citation}); {own or 'no own parameters'}")
    common = [p for p in operators()[0].params if p.common]
    lines.append("  common to all: " + ", ".join(f"{p.name}={p.default:g} [{p.min:g}, {p.max:g}]" for p in common))
    return "\n".join(lines)


map.__doc__ += _registry_doc()
ToneMapper.__doc__ += _registry_doc()
