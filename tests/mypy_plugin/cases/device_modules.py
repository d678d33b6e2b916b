# typedtensor.cuda and typedtensor.cpu as torch programs call them (nanoGPT's train.py and sample.py):
# every runtime function has its stub, and the device-bound amp spellings are exported.
import typedtensor as tt


def setup(dtype: str) -> None:
    tt.cuda.manual_seed(1337)
    tt.cuda.manual_seed_all(1337)
    reveal_type(tt.cuda.initial_seed())  # R: int
    reveal_type(tt.cuda.is_bf16_supported())  # R: bool
    reveal_type(tt.cuda.memory_allocated())  # R: int
    scaler = tt.cuda.amp.GradScaler(enabled=(dtype == "float16"))
    reveal_type(scaler)  # R: GradScaler
    reveal_type(tt.cpu.amp.GradScaler())  # R: GradScaler
    tt.cuda.no_such_function()  # E: attr-defined
