#!/usr/bin/env python3
"""Lint the model code of real zoos nobody here tuned on, and count what exportlint says.

    python bench/zoo_sweep.py                    # fetch (pip download --no-deps) and lint
    python bench/zoo_sweep.py --code /tmp/before --json before.json   # another checkout
    python bench/zoo_sweep.py --compare before.json after.json         # per zoo, before -> after

The wheels are fetched at run time into ``bench/.corpus/zoo_sweep/`` (git-ignored), never
committed, and unpacked there; only their source is read (nothing is imported or installed).
Each tree is linted with the real CLI (``--format json --no-cache -j1``). There is no export
truth here (most of these packages do not even import without their dependencies): the sweep
is for reading error findings by hand and for catching changes in what the linter says on code
it was not written against. The error findings removed at a change are listed with
``--compare`` so that each can be read against the code.

Not a test: it prints, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = HERE / ".corpus" / "zoo_sweep"

#: (distribution, the folder of its model code inside the wheel)
ZOOS = [
    ("ultralytics", "ultralytics/nn"),
    ("diffusers", "diffusers/models"),
    ("segmentation-models-pytorch", "segmentation_models_pytorch"),
    ("open_clip_torch", "open_clip"),
    ("monai", "monai/networks"),
    ("kornia", "kornia/feature"),
    ("torch_geometric", "torch_geometric/nn"),
    ("speechbrain", "speechbrain/lobes"),
    ("x-transformers", "x_transformers"),
    ("vector-quantize-pytorch", "vector_quantize_pytorch"),
    ("mmdet", "mmdet/models"),
    ("mmpretrain", "mmpretrain/models"),
    # added for issue 10's held-out precision (sweep5): never linted here before
    ("mmsegmentation", "mmseg/models"),
    ("mmocr", "mmocr/models"),
    ("fair-esm", "esm"),
    ("denoising-diffusion-pytorch", "denoising_diffusion_pytorch"),
    ("e3nn", "e3nn"),
    ("lightly", "lightly/models"),
    ("pyannote.audio", "pyannote/audio/models"),
    ("rfdetr", "rfdetr/models"),
    ("yolov5", "yolov5/models"),
    ("chronos-forecasting", "chronos"),
    ("peft", "peft/tuners"),
    ("mmaction2", "mmaction/models"),
    ("torchaudio", "torchaudio/models"),  # a platform wheel: only its pure-Python source is read
    # added for issue 10's fresh population (prec10): never linted here before
    ("vit-pytorch", "vit_pytorch"),
    ("sentence-transformers", "sentence_transformers"),
    ("mmpose", "mmpose/models"),
    ("neuralforecast", "neuralforecast"),
    ("demucs", "demucs"),
    ("asteroid", "asteroid"),
    # added for issue 10's second fresh population (prec11): never linted here before
    ("pytorch-forecasting", "pytorch_forecasting/models"),
    ("torchgeo", "torchgeo/models"),
    ("segment-anything", "segment_anything"),
    ("flair", "flair/models"),
    ("mmagic", "mmagic/models"),
    ("funasr", "funasr/models"),
    ("gluonts", "gluonts/torch"),
    # added for issue 10's third fresh population (prec12): never linted here before
    ("espnet", "espnet2/asr"),
    ("effdet", "effdet"),
    ("darts", "darts/models"),
    ("torchtune", "torchtune/modules"),
    ("mmyolo", "mmyolo/models"),
    ("basicsr", "basicsr/archs"),
    ("tsai", "tsai/models"),
    # added for issue 10's fourth fresh population (prec13): never linted here before
    ("descript-audio-codec", "dac"),
    ("dynamic-network-architectures", "dynamic_network_architectures"),
    ("facenet-pytorch", "facenet_pytorch/models"),
    ("lightning-bolts", "pl_bolts/models"),
    ("mmdet3d", "mmdet3d/models"),
    ("perceiver-pytorch", "perceiver_pytorch"),
    ("pytorch-tabnet", "pytorch_tabnet"),
    ("rotary-embedding-torch", "rotary_embedding_torch"),
    ("timesfm", "timesfm"),
    ("mmrotate", "mmrotate/models"),
    ("compressai", "compressai"),  # a platform wheel: only its pure-Python source is read
    ("pytorch-widedeep", "pytorch_widedeep/models"),
    ("gfpgan", "gfpgan/archs"),
    ("facexlib", "facexlib"),
    ("vocos", "vocos"),
    ("pytorch-tabular", "pytorch_tabular/models"),
    ("efficientnet-pytorch", "efficientnet_pytorch"),
    # added for issue 10's fifth fresh population (prec14): never linted here before
    ("pytorchcv", "pytorchcv/models"),
    ("fastai", "fastai/vision"),
    ("lpips", "lpips"),
    ("torchcrepe", "torchcrepe"),
    ("snac", "snac"),
    ("f5-tts", "f5_tts/model"),
    ("deepctr-torch", "deepctr_torch"),
    ("openunmix", "openunmix"),
    ("k-diffusion", "k_diffusion"),
    ("realesrgan", "realesrgan/archs"),
    ("mmflow", "mmflow/models"),
    ("recbole", "recbole/model"),
    ("pytorch-tcn", "pytorch_tcn"),
    ("enformer-pytorch", "enformer_pytorch"),
    ("torchlibrosa", "torchlibrosa"),
    ("smplx", "smplx"),
    ("coqui-tts", "TTS/tts"),
    ("audio-diffusion-pytorch", "audio_diffusion_pytorch"),
    # added for issue 10's sixth fresh population (prec15): never linted here before
    ("spandrel", "spandrel/architectures"),
    ("pykeen", "pykeen/nn"),
    ("gpytorch", "gpytorch/kernels"),
    ("snntorch", "snntorch"),
    ("torchdiffeq", "torchdiffeq"),
    ("stanza", "stanza/models"),
    ("pypots", "pypots/nn"),
    ("chemprop", "chemprop/nn"),
    ("nnaudio", "nnAudio"),
    ("ctgan", "ctgan/synthesizers"),
    ("torchani", "torchani"),
    ("neuralprophet", "neuralprophet"),
    ("ncps", "ncps/torch"),
    ("pykan", "kan"),
    ("escnn", "escnn/nn"),
    ("torchsde", "torchsde"),
    # added for issue 10's seventh fresh population (prec16): never linted here before
    ("braindecode", "braindecode/models"),
    ("easyocr", "easyocr"),
    ("face-alignment", "face_alignment"),
    ("gliner", "gliner/modeling"),
    ("kokoro", "kokoro"),
    ("mace-torch", "mace/modules"),
    ("momentfm", "momentfm/models"),
    ("neuraloperator", "neuralop"),
    ("python-doctr", "doctr/models"),
    ("pytorch-fid", "pytorch_fid"),
    ("pytorch-toolbelt", "pytorch_toolbelt/modules"),
    ("rwkv", "rwkv"),
    ("schnetpack", "schnetpack"),
    ("spikingjelly", "spikingjelly/activation_based"),
    ("tabpfn", "tabpfn/architectures"),
    ("torchxrayvision", "torchxrayvision"),
    ("uni2ts", "uni2ts"),
    # added for issue 10's eighth fresh population (prec17): never linted here before; one or two
    # per domain (speech/audio, graph, 3D/equivariant, detection, time series, RL, diffusion, NLP,
    # classic vision, inpainting). Five have no wheel: their sdist's source is read instead.
    ("openai-whisper", "whisper"),
    ("encodec", "encodec"),
    ("audiocraft", "audiocraft/modules"),
    ("styletts2", "styletts2"),
    ("torch-geometric-temporal", "torch_geometric_temporal/nn"),
    ("torch-spatiotemporal", "tsl/nn"),
    ("egnn-pytorch", "egnn_pytorch"),
    ("se3-transformer-pytorch", "se3_transformer_pytorch"),
    ("nequip", "nequip/nn"),
    ("torchmd-net", "torchmdnet/models"),
    ("super-gradients", "super_gradients/training/models"),
    ("granite-tsfm", "tsfm_public/models"),
    ("d3rlpy", "d3rlpy/models"),
    ("tianshou", "tianshou/utils"),
    ("imagen-pytorch", "imagen_pytorch"),
    ("dalle2-pytorch", "dalle2_pytorch"),
    ("torchscale", "torchscale"),
    ("pretrainedmodels", "pretrainedmodels/models"),
    ("iopaint", "iopaint/model"),
    # added for issue 10's ninth fresh population (prec18): never linted here before; one per
    # domain, picked before any was read (bench/labels/probes_prec18/pop9_pick_rule.md). Four have
    # no wheel (parler-tts, pytorchvideo, sam2, groundingdino-py): their sdist's source is read.
    # mamba-ssm was picked too; its sdist does not build metadata without CUDA, so it is left out.
    ("litgpt", "litgpt"),
    ("speechtokenizer", "speechtokenizer"),
    ("parler-tts", "parler_tts"),
    ("stable-baselines3", "stable_baselines3/common"),
    ("fairchem-core", "fairchem/core/models"),
    ("dgllife", "dgllife/model"),
    ("pytorchvideo", "pytorchvideo/models"),
    ("sam2", "sam2/modeling"),
    ("groundingdino-py", "groundingdino/models"),
    ("surya-ocr", "surya"),
    ("nerfstudio", "nerfstudio/fields"),
    ("tab-transformer-pytorch", "tab_transformer_pytorch"),
    ("deepfilternet", "df"),
    ("super-image", "super_image/models"),
    ("microsoft-aurora", "aurora/model"),
    ("esm", "esm/layers"),
    ("torchrec", "torchrec/models"),
    # added for issue 10's tenth fresh population (prec19): never linted here before; one per
    # domain, picked before any was fetched or read (bench/labels/probes_prec19/pop10_pick_rule.md).
    # yolox has no wheel: its sdist's source is read (pip download needs --no-build-isolation);
    # torchdrug's only wheel is tagged for older Pythons (--python-version 3.9 fetches it).
    ("yolox", "yolox/models"),
    ("cellpose", "cellpose"),
    ("audiolm-pytorch", "audiolm_pytorch"),
    ("voicefixer", "voicefixer"),
    ("timesformer-pytorch", "timesformer_pytorch"),
    ("point-transformer-pytorch", "point_transformer_pytorch"),
    ("stylegan2-pytorch", "stylegan2_pytorch"),
    ("torchdrug", "torchdrug/models"),
    ("pix2tex", "pix2tex/models"),
    ("boxmot", "boxmot"),  # the picked boxmot/appearance is not in 25.0.0: the top folder, as the rule says
    ("torchsr", "torchsr/models"),
    ("tft-torch", "tft_torch"),
    ("ptlflow", "ptlflow/models"),
    ("open-flamingo", "open_flamingo/src"),
    ("anomalib", "anomalib/models"),
    ("carvekit", "carvekit/ml/arch"),
    ("resemblyzer", "resemblyzer"),
    # added for issue 10's eleventh fresh population (prec20): never linted here before; one per
    # domain, picked before any was fetched or read (bench/labels/probes_prec20/pop11_pick_rule.md).
    # nflows, parallel-wavegan and torchreid have no wheel: their sdist's source is read
    # (parallel-wavegan needs --no-build-isolation); depth-anything-v2 asks for Python >= 3.12
    # (--python-version 3.12 fetches it); scvi-tools' newest wheel for this Python is 1.4.2.
    ("xlstm", "xlstm"),
    ("panns-inference", "panns_inference"),
    ("nflows", "nflows"),
    ("deepxde", "deepxde/nn/pytorch"),
    ("scvi-tools", "scvi/module"),
    ("laion-clap", "laion_clap/clap_module"),
    ("avalanche-lib", "avalanche/models"),
    ("pycox", "pycox/models"),
    ("parallel-wavegan", "parallel_wavegan/models"),
    ("alphafold3-pytorch", "alphafold3_pytorch"),
    ("bs-roformer", "bs_roformer"),
    ("meshgpt-pytorch", "meshgpt_pytorch"),
    ("muse-maskgit-pytorch", "muse_maskgit_pytorch"),
    ("retinaface-pytorch", "retinaface"),
    ("pyiqa", "pyiqa/archs"),
    ("depth-anything-v2", "depth_anything_v2"),
    ("torchreid", "torchreid"),  # the picked torchreid/models is not in 0.2.5 (it is torchreid/reid/models): the top folder, as the rule says
]


def _archives(key: str) -> list[Path]:
    """The wheels of a distribution in the corpus, or else its sdists (a package with no wheel)."""
    found = [w for w in CORPUS.glob("*.whl") if w.name.lower().startswith(key + "-")]
    return found or [s for s in CORPUS.glob("*.tar.gz") if s.name.lower().startswith(key + "-")]


def _unpack(archive: Path, dest: Path) -> None:
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            z.extractall(dest)
        return
    with tarfile.open(archive) as t:  # an sdist: its top folder is dropped, so the paths match a wheel's
        members = []
        for m in t.getmembers():
            parts = m.name.split("/", 1)
            if len(parts) == 2 and parts[1]:
                m.name = parts[1]
                members.append(m)
        t.extractall(dest, members=members, filter="data")


def fetch(only: list[str] | None = None) -> dict[str, Path]:
    CORPUS.mkdir(parents=True, exist_ok=True)
    out = {}
    for dist, sub in ZOOS:
        if only and not any(o in dist for o in only):
            continue
        key = dist.replace("-", "_").replace(".", "_").lower()
        wheels = _archives(key)
        if not wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q",
                            "-d", str(CORPUS), dist], check=False)
            wheels = _archives(key)
        if not wheels:
            print(f"  {dist}: could not be fetched, skipped")
            continue
        wheel = sorted(wheels)[-1]
        stem = wheel.name.removesuffix(".whl").removesuffix(".tar.gz")
        dest = CORPUS / "src" / stem
        if not dest.is_dir():
            _unpack(wheel, dest)
        if (dest / sub).is_dir():
            out[f"{dist} ({stem.split('-')[1]}): {sub}"] = dest / sub
    return out


def lint(code: Path, tree: Path) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(code))
    r = subprocess.run([sys.executable, "-m", "exportlint", "--format", "json", "--no-cache", "-j1", str(tree)],
                       capture_output=True, text=True, env=env, cwd=str(code))
    try:
        found = json.loads(r.stdout or "[]")
    except json.JSONDecodeError:
        print(f"  {tree}: no JSON (exit {r.returncode}): {r.stderr[-300:]}")
        return []
    if r.returncode not in (0, 1) or "internal error" in r.stderr:
        # exit 2: exportlint's own errors (an analyser that raised, an unreadable file), which
        # the JSON leaves out: shown, never dropped with the zoo's findings
        print(f"  {tree}: exit {r.returncode}, exportlint reported errors: {r.stderr.strip()[-600:]}")
    root = str(tree.parent) + os.sep
    for f in found:
        f["path"] = f["path"].replace(root, "")
    return found


def compare(a: dict, b: dict) -> None:
    print(f"{'zoo':58s} {'findings':>15s} {'errors':>13s}")
    ta = tb = ea = eb = 0
    for zoo in b:
        A, B = a.get(zoo, []), b[zoo]
        e1 = [f for f in A if f["severity"] == "error"]
        e2 = [f for f in B if f["severity"] == "error"]
        print(f"{zoo:58s} {len(A):6d} -> {len(B):<6d} {len(e1):5d} -> {len(e2):<5d}")
        ta, tb, ea, eb = ta + len(A), tb + len(B), ea + len(e1), eb + len(e2)
        key = lambda f: (f["path"], f["line"], f["code"])  # noqa: E731
        gone = sorted(set(map(key, e1)) - set(map(key, e2)))
        new = sorted(set(map(key, e2)) - set(map(key, e1)))
        for tag, items in (("-", gone), ("+", new)):
            for p, ln, c in items[:15]:
                print(f"      {tag} {p}:{ln} {c}")
            if len(items) > 15:
                print(f"      {tag} ... {len(items) - 15} more")
    print(f"{'total':58s} {ta:6d} -> {tb:<6d} {ea:5d} -> {eb:<5d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, default=ROOT, help="the exportlint checkout to run (default: this one)")
    ap.add_argument("--json", type=Path, help="write the findings per zoo here")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two --json outputs")
    ap.add_argument("--corpus", type=Path, help=f"fetch and unpack the wheels here (default: {CORPUS})")
    ap.add_argument("--zoo", action="append", default=[], help="only the zoos whose distribution contains this")
    args = ap.parse_args(argv)
    if args.corpus:
        globals()["CORPUS"] = args.corpus
    if args.compare:
        compare(json.loads(args.compare[0].read_text()), json.loads(args.compare[1].read_text()))
        return 0
    trees = fetch(args.zoo)
    results = {}
    for zoo, tree in trees.items():
        found = lint(args.code, tree)
        results[zoo] = found
        by = Counter((f["code"], f["severity"]) for f in found)
        errors = sum(n for (c, s), n in by.items() if s == "error")
        top = ", ".join(f"{c} {s[0]} {n}" for (c, s), n in by.most_common(6))
        print(f"{zoo:58s} {len(found):5d} findings, {errors:4d} errors   {top}")
    if args.json:
        args.json.write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
