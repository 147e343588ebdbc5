"""An application's own "no GPU" line stands for torch.cuda.is_available() being False: with an NVIDIA GPU named,
a CPU-only torch is the likeliest cause (frameworks.py, torch_without_cuda_on_nvidia_gpu)."""

from __future__ import annotations

from tests.checks.pasted import severities as _ids



def test_text_generation_webui_falling_back_to_cpu_on_an_rtx_4080():
    # oobabooga/textgen#310
    text = ("F:\\text-generation-webui>python server.py --model llama-7b-hf --load-in-8bit\nLoading llama-7b-hf...\n"
            "Warning: no GPU has been detected.\nFalling back to CPU mode.\n\nWindows 10\nGigabyte RTX 4080\n")
    assert _ids(text).get("torch-cpu-only-build") == "warning"


def test_the_same_line_without_a_gpu_named_is_no_cause():
    assert "torch-cpu-only-build" not in _ids("Loading opt-350m...\nWarning: no GPU has been detected.\nFalling back to CPU mode.\n")
