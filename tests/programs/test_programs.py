"""Public PyTorch training programs, ported by changing only their imports, train like torch.

Each program runs three times (tests/programs/harness.py): on torch, on typedtensor from torch's
initial weights, and on torch from initial weights one float32 ulp away (the yardstick: how far
rounding alone moves that program's losses), with the same batches and the same random draws. The
first loss and the losses of the 20th optimizer step must lie within ten times torch's own one-ulp
spread (and never closer than a few float32 ulps); ``harness.Comparison`` says why the steps in
between are reported rather than checked.

A program that needs what typedtensor does not have yet is ``xfail(strict=True)`` with exactly
what is missing, so it turns into a failure ("XPASS") the day the last piece lands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("typedtensor._C")

from tests.programs import harness
from tests.programs.harness import Comparison, Program, compare


def _wikitext_like(root: Path) -> None:
    """word_language_model reads train/valid/test.txt: a small corpus of made-up sentences."""
    import numpy as np

    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(40)]
    folder = root / "data" / "synthetic"
    folder.mkdir(parents=True)
    for split, lines in (("train", 120), ("valid", 30), ("test", 30)):
        text = "\n".join(" ".join(rng.choice(vocab, size=int(rng.integers(3, 9)))) for _ in range(lines))
        (folder / f"{split}.txt").write_text(text + "\n", encoding="utf8")


def _tiny_char(root: Path) -> None:
    """nanoGPT reads data/<dataset>/train.bin and val.bin (uint16 token ids) and meta.pkl (vocab_size,
    stoi, itos), as its data/shakespeare_char/prepare.py writes them: here from made-up lines."""
    import pickle

    import numpy as np

    rng = np.random.default_rng(11)
    words = ["the", "king", "queen", "shall", "speak", "of", "love", "and", "war", "my", "lord", "good", "night"]
    text = "\n".join(" ".join(rng.choice(words, size=int(rng.integers(3, 8)))).capitalize() + "." for _ in range(150))
    text += "\n"
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    folder = root / "data" / "tiny_char"
    folder.mkdir(parents=True)
    split = int(len(text) * 0.9)
    for name, part in (("train", text[:split]), ("val", text[split:])):
        np.array([stoi[c] for c in part], dtype=np.uint16).tofile(folder / f"{name}.bin")
    with open(folder / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}, f)


def _pil_image(root: Path) -> Any:
    """``PIL.Image`` from the stand-ins copied into the run directory (Pillow is not installed here),
    loaded without registering it, so the program imports its own copy."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_pil_image_for_test_data", root / "PIL" / "Image.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _photos(rng: Any, count: int, height: int, width: int) -> list[Any]:
    """Photo-like RGB uint8 images: a smooth colour gradient, a few flat discs and mild noise, so a
    resize and a crop change them the way they change real photographs."""
    import numpy as np

    rows, cols = np.mgrid[0:height, 0:width].astype(np.float64)
    images = []
    for _ in range(count):
        base = rng.uniform(0, 255, 3) + rng.uniform(-0.4, 0.4, 3) * rows[..., None] + rng.uniform(-0.4, 0.4, 3) * cols[..., None]
        for _ in range(4):
            cy, cx, radius = rng.uniform(0, height), rng.uniform(0, width), rng.uniform(height / 10, height / 3)
            base[(rows - cy) ** 2 + (cols - cx) ** 2 < radius**2] = rng.uniform(0, 255, 3)
        base += rng.normal(0, 6, base.shape)
        images.append(np.clip(base, 0, 255).astype(np.uint8))
    return images


def _bsds300_like(root: Path) -> None:
    """super_resolution reads dataset/BSDS300/images/{train,test}/*.jpg (481 x 321 photographs) and
    downloads them when that folder is missing: here a few photo-like PNGs, written with the PIL
    stand-in, big enough for the program's 256-pixel centre crop."""
    import numpy as np

    Image = _pil_image(root)
    rng = np.random.default_rng(5)
    for split, count in (("train", 10), ("test", 4)):
        folder = root / "dataset" / "BSDS300" / "images" / split
        folder.mkdir(parents=True)
        for i, image in enumerate(_photos(rng, count, 264, 272)):
            Image.fromarray(image).save(folder / f"{i:03d}.png")
    (small,) = _photos(rng, 1, 20, 24)  # what super_resolve.py upscales (8 times: 160 x 192)
    Image.fromarray(small).save(root / "small.png")


def _coco_like(root: Path) -> None:
    """fast_neural_style trains on an ImageFolder (COCO's images in one class folder) towards one
    style image: here photo-like PNGs of uneven sizes (its Resize and CenterCrop both act) and a
    style image as big as a training crop."""
    import numpy as np

    Image = _pil_image(root)
    rng = np.random.default_rng(9)
    folder = root / "data" / "images"
    folder.mkdir(parents=True)
    for i in range(40):
        (image,) = _photos(rng, 1, int(rng.integers(36, 44)), int(rng.integers(36, 44)))
        Image.fromarray(image).save(folder / f"{i:03d}.png")
    (style,) = _photos(rng, 1, 32, 32)
    Image.fromarray(style).save(root / "style.png")


_NANOGPT_CONFIG = "config/train_tiny_char.py"

PROGRAMS = {
    "mnist": Program(
        "mnist", "main.py", ("--batch-size", "8", "--test-batch-size", "32", "--epochs", "1", "--log-interval", "5"),
        losses=20,
    ),
    "mnist_rnn": Program(
        "mnist_rnn", "main.py",
        ("--batch-size", "8", "--test-batch-size", "32", "--epochs", "1", "--log-interval", "5"), losses=20,
    ),
    "vae": Program("vae", "main.py", ("--batch-size", "16", "--epochs", "2", "--log-interval", "5"), losses=20),
    "dcgan": Program(
        "dcgan", "main.py",
        ("--dataset", "fake", "--batchSize", "4", "--nz", "16", "--ngf", "8", "--ndf", "8", "--niter", "1",
         "--workers", "2", "--outf", "out", "--manualSeed", "1"),
        losses=60, per_step=3,  # three backward passes (D on real, D on fake, G) per step
    ),
    "word_language_model": Program(
        "word_language_model", "main.py",
        ("--data", "data/synthetic", "--emsize", "16", "--nhid", "16", "--nlayers", "2", "--epochs", "1",
         "--batch_size", "4", "--bptt", "8", "--dropout", "0", "--tied", "--log-interval", "5"),
        losses=20, prepare=_wikitext_like,
    ),
    "time_sequence_prediction": Program(
        "time_sequence_prediction", "train.py", ("--steps", "2",), losses=20, before=("generate_sine_wave.py",),
        # the program torch.load()s a pickled numpy array, which torch >= 2.6 refuses by default
        # (weights_only=True); torch's own switch restores the behaviour the program was written for
        env=(("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1"),),
    ),
    "imagenet": Program(
        "imagenet", "main.py", ("--dummy", "-a", "resnet18", "-b", "2", "-j", "2", "--epochs", "1", "-p", "5"),
        losses=20,
    ),
    # the same program training one of torchvision's newer models (its -a takes any name in
    # torchvision.models): MobileNetV3's hardswish, hardsigmoid and squeeze-excitation, its dropout.
    # (EfficientNet-B0 trains too, but its 20th loss moves by 3 in torch's own one-ulp run: no check.)
    "imagenet_mobilenet_v3": Program(
        "imagenet_mobilenet_v3", "main.py",
        ("--dummy", "-a", "mobilenet_v3_small", "-b", "2", "-j", "2", "--epochs", "1", "-p", "5"),
        losses=20, directory="imagenet",
    ),
    "mingpt": Program(
        "mingpt", "adder.py",
        ("--data.ndigit=1", "--trainer.max_iters=20", "--trainer.batch_size=16", "--trainer.num_workers=2",
         "--system.work_dir=out"),
        losses=20,
    ),
    # 11 iterations (0..10) from scratch, a checkpoint at 5 and 10; resumed from it up to iteration 15
    # (the optimizer's state and the iteration count from the checkpoint); then sampling from the
    # checkpoint written at 15 with top_k.
    "nanogpt": Program(
        "nanogpt", "train.py", (_NANOGPT_CONFIG,),
        then=(f"train.py {_NANOGPT_CONFIG} --init_from=resume --max_iters=15",
              "sample.py --out_dir=out-tiny-char --device=cpu --num_samples=2 --max_new_tokens=12 --top_k=5"),
        losses=17, prepare=_tiny_char,
    ),
    "nanogpt_dropout": Program(
        "nanogpt_dropout", "train.py", (_NANOGPT_CONFIG, "--dropout=0.1", "--bias=True"),
        losses=11, prepare=_tiny_char, directory="nanogpt",
    ),
    # compile=True (nanoGPT's default) on typedtensor: model = torch.compile(model), the loss
    # differentiated outside, the checkpoint's state_dict with the _orig_mod. keys its resume strips;
    # compared with torch's eager run (torch's inductor refuses the harness's patched functions)
    "nanogpt_compile": Program(
        "nanogpt_compile", "train.py", (_NANOGPT_CONFIG, "--compile=True"),
        then=(f"train.py {_NANOGPT_CONFIG} --compile=True --init_from=resume --max_iters=15",),
        losses=17, prepare=_tiny_char, directory="nanogpt", torch_extra=("--compile=False",),
    ),
    # runs until its loss falls under 1e-3 (no flags); the harness stops it after 20 steps
    "regression": Program("regression", "main.py", (), losses=20),
    # --lr 0.05 (default 1.0): Adadelta's first steps move every weight by about lr * 3e-3 * sign(g), so
    # torch's own one-ulp run ends step 20 1.5 away at lr 1.0 (0.4 at 0.05); the first loss is exact either way
    "siamese_network": Program(
        "siamese_network", "main.py", ("--batch-size", "8", "--test-batch-size", "32", "--epochs", "1",
                                       "--log-interval", "5", "--no-accel", "--lr", "0.05"), losses=20,
    ),
    # each of the two layers trains for --epochs steps on one batch of --train_size images
    "mnist_forward_forward": Program(
        "mnist_forward_forward", "main.py",
        ("--epochs", "10", "--train_size", "64", "--test_size", "32", "--log-interval", "5", "--no_accel"),
        losses=20,
    ),
    # upscale factor 8: the 256-pixel crops become 32-pixel inputs; 10 training images in batches of 2
    # over 4 epochs (each followed by its test pass and a torch.save of the whole model); then
    # super_resolve.py upscales an image with the model pickled after epoch 3 (torch.load under
    # serialization.safe_globals)
    "super_resolution": Program(
        "super_resolution", "main.py",
        ("--upscale_factor", "8", "--batchSize", "2", "--testBatchSize", "2", "--nEpochs", "4", "--threads", "0"),
        then=("super_resolve.py --input_image small.png --model model_epoch_3.pth --output_filename out.png",),
        losses=20, prepare=_bsds300_like,
    ),
    # 32-pixel crops of 40 images in batches of 2 (one epoch, 20 steps) through torchvision's VGG16, a
    # checkpoint of the transformer's state_dict after step 10; then the program's eval mode stylizes
    # an image with that checkpoint (torch.load, load_state_dict, no_grad, its save_image)
    "fast_neural_style": Program(
        "fast_neural_style", "neural_style.py",
        ("train", "--dataset", "data", "--style-image", "style.png", "--save-model-dir", "out", "--epochs", "1",
         "--batch-size", "2", "--image-size", "32", "--log-interval", "5", "--checkpoint-model-dir", "ckpt",
         "--checkpoint-interval", "10"),
        then=("neural_style.py eval --content-image data/images/000.png --model ckpt/ckpt_epoch_0_batch_id_10.pth "
              "--output-image stylized.png",),
        losses=20, prepare=_coco_like,
    ),
    # CartPole-v1 from standins/gymnasium; one loss per episode, the harness stops them after 20
    # (the programs run until the running reward passes 475, with no flag to stop sooner)
    "reinforce": Program(
        "reinforce", "reinforce.py", ("--log-interval", "5"), losses=20, directory="reinforcement_learning",
    ),
    "actor_critic": Program(
        "actor_critic", "actor_critic.py", ("--log-interval", "5"), losses=20, directory="reinforcement_learning",
    ),
}

# What each program still needs from typedtensor (the xfail reasons; empty when it runs).
MISSING: dict[str, str] = {
    "mnist": "",
    "mnist_rnn": "",
    "vae": "",
    "dcgan": "",
    "word_language_model": "",
    "time_sequence_prediction": "",
    "imagenet": "",
    "imagenet_mobilenet_v3": "",
    "mingpt": "",
    "nanogpt": "",
    "nanogpt_dropout": "",
    "nanogpt_compile": "",
    "regression": "",
    "siamese_network": "",
    "mnist_forward_forward": "",
    "super_resolution": "",
    "fast_neural_style": "",
    "reinforce": "",
    "actor_critic": "",
}
# Each list above was checked by running the program with stand-ins for exactly those pieces (a
# Python LSTM, a ConvTranspose2d from conv2d, ...): with them, every one of these programs passes.

SLOW = {
    "imagenet", "imagenet_mobilenet_v3", "time_sequence_prediction", "dcgan", "siamese_network", "super_resolution",
    "fast_neural_style", "reinforce", "actor_critic",
}


def _param(name: str) -> object:
    marks = []
    if MISSING.get(name):
        marks.append(pytest.mark.xfail(strict=True, reason=f"typedtensor lacks: {MISSING[name]}"))
    if name in SLOW:
        marks.append(pytest.mark.slow)
    return pytest.param(name, marks=marks, id=name)


def _report(name: str, cmp: Comparison) -> str:
    last = len(cmp.torch) - 1
    worst = max(range(len(cmp.torch)), key=lambda i: abs(cmp.ours[i] - cmp.torch[i]))
    return (
        f"{name}: loss 1 typedtensor {cmp.ours[0]:.7g} torch {cmp.torch[0]:.7g}; "
        f"loss {last + 1} typedtensor {cmp.ours[last]:.7g} torch {cmp.torch[last]:.7g} "
        f"(torch's one-ulp spread {cmp.noise(last):.3g}); largest difference on the way: loss {worst + 1}, "
        f"{abs(cmp.ours[worst] - cmp.torch[worst]):.3g}"
        + (f"; {sum(map(len, cmp.torch_draws))} multinomial draws, typedtensor's == torch's: "
           f"{cmp.ours_draws == cmp.torch_draws} (torch's one-ulp run's: {cmp.torch_perturbed_draws == cmp.torch_draws})"
           if cmp.torch_draws else "")
    )


@pytest.mark.parametrize("name", [_param(n) for n in PROGRAMS])
def test_program_trains_like_torch(name: str, tmp_path: Path) -> None:
    cmp = compare(PROGRAMS[name], tmp_path)
    print(_report(name, cmp))
    failures = cmp.failures()
    assert not failures, f"{name}: losses differ from torch's beyond float32 noise:\n" + "\n".join(failures)


@pytest.mark.parametrize("lib_name", ["torch", "typedtensor"])
def test_a_programs_matmul_precision_does_not_outlive_its_run(
    lib_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nanoGPT sets ``allow_tf32``, which is the float32 matmul precision in both libraries; the
    programs run in this process one after another, so the harness restores it after each run."""
    source = tmp_path / "src" / "sets_tf32"
    source.mkdir(parents=True)
    (source / "main.py").write_text(
        "import typedtensor as torch\n"  # the ports' form: the harness points it at torch for torch's run

        "torch.backends.cuda.matmul.allow_tf32 = True\n"
        "torch.backends.cudnn.allow_tf32 = False\n"
        "assert torch.get_float32_matmul_precision() == 'high'\n"
    )
    monkeypatch.setattr(harness, "HERE", tmp_path / "src")
    top = harness._Lib(lib_name).top
    before = (top.get_float32_matmul_precision(), top.backends.cudnn.allow_tf32)
    harness.run_program(harness.Program("sets_tf32", "main.py", (), losses=0), lib_name, tmp_path / "run")
    assert (top.get_float32_matmul_precision(), top.backends.cudnn.allow_tf32) == before
