"""checks/amd.py finding by finding (issue 11: its mutation score): the whole Finding a user sees for each AMD
rule, each boundary (a group present/absent, a target carried or not, an override one past its limit) and the
silent cases (not applicable, unknown facts: no finding)."""

from __future__ import annotations

from gpudoctor.checks import amd as a
from gpudoctor.model import AmdGpu, Facts, Finding, Fix, Frameworks, Host, PciDevice, Rocm, Section, Severity, TorchBuild

RX7900XTX = AmdGpu(0, "AMD Radeon RX 7900 XTX", "gfx1100", memory_total_mib=24560)
RX6700XT = AmdGpu(1, "AMD Radeon RX 6700 XT", "gfx1031")
INSTALL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/quick-start.html"
GROUPS = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html"
REQUIREMENTS = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"


def run(rule, facts):
    return list(rule(facts, None))


def one(rule, facts):
    (finding,) = run(rule, facts)
    return finding


def test_amd_label_names_index_model_and_target_or_says_unknown():
    assert a.amd_label(RX7900XTX) == "AMD GPU 0: AMD Radeon RX 7900 XTX (gfx1100)"
    assert a.amd_label(AmdGpu()) == "AMD GPU ?: model unknown"
    assert a.amd_label(AmdGpu(index=3, gfx_target="gfx90a")) == "AMD GPU 3: model unknown (gfx90a)"
    assert a.amd_gpus(Facts(amd_gpus=(RX6700XT,))) == (RX6700XT,)
    assert a.amd_gpus(Facts()) == () and a.amd_gpus(Facts(amd_gpus=())) == ()


def test_amd_gpus_found_pinned():
    facts = Facts(gpus=(), pci_devices=(), amd_gpus=(RX7900XTX, RX6700XT), rocm=Rocm(version="6.4.1", source="amdsmi"))
    assert one(a.amd_gpus_found, facts) == Finding(
        "amd-gpus-found", Severity.OK, Section.GPU, "2 AMD GPUs, ROCm 6.4.1",
        ("AMD GPU 0: AMD Radeon RX 7900 XTX (gfx1100), 24560 MiB",
         "AMD GPU 1: AMD Radeon RX 6700 XT (gfx1031)",
         "read through amdsmi",
         "no NVIDIA GPU: the NVIDIA driver and CUDA checks do not apply to this machine"))


def test_amd_gpus_found_with_rocm_unknown_and_nvidia_presence_unknown():
    # one GPU: singular; no ROCm facts or no version: "unknown"; NVIDIA presence unknown (None): no claim about it
    for rocm in (None, Rocm(), Rocm(version="", source=None)):
        assert one(a.amd_gpus_found, Facts(amd_gpus=(RX6700XT,), rocm=rocm)) == Finding(
            "amd-gpus-found", Severity.OK, Section.GPU, "1 AMD GPU, ROCm version unknown", ("AMD GPU 1: AMD Radeon RX 6700 XT (gfx1031)",))
    # an NVIDIA GPU on the bus as well: the NVIDIA checks do apply, so no word about them
    with_nvidia = Facts(gpus=(), pci_devices=(PciDevice(bus_id="0000:01:00.0"),), amd_gpus=(RX6700XT,))
    assert one(a.amd_gpus_found, with_nvidia).evidence == ("AMD GPU 1: AMD Radeon RX 6700 XT (gfx1031)",)


def test_amd_gpus_found_is_silent_without_amd_gpus():
    assert run(a.amd_gpus_found, Facts()) == []
    assert run(a.amd_gpus_found, Facts(amd_gpus=(), rocm=Rocm(version="6.4.1"))) == []


NOT_LOADED_FIX = Fix("Load the driver (install AMD's amdgpu-dkms if the kernel lacks it), then check again",
                     ("sudo modprobe amdgpu", "sudo dmesg | grep -i amdgpu   # why it failed, if it does", "rocminfo | grep -E 'Name|Marketing'"),
                     INSTALL)


def test_amdgpu_driver_not_loaded_pinned():
    facts = Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(version="6.4.1", amdgpu_loaded=False),
                  frameworks=Frameworks(torch=TorchBuild(version="2.8.0+rocm6.4", hip="6.4", build="rocm")))
    assert one(a.amdgpu_driver_not_loaded, facts) == Finding(
        "amdgpu-driver-not-loaded", Severity.ERROR, Section.GPU,
        "The amdgpu kernel driver is not loaded: ROCm cannot reach an AMD GPU",
        ("the amdgpu kernel module is not loaded (/sys/module/amdgpu is absent)",
         "ROCm 6.4.1 is installed",
         "torch is a ROCm 6.4 build"),
        NOT_LOADED_FIX)


def test_amdgpu_driver_not_loaded_on_each_sign_of_amd_alone():
    bare = ("the amdgpu kernel module is not loaded (/sys/module/amdgpu is absent)",)
    gpu_only = Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(amdgpu_loaded=False))
    assert one(a.amdgpu_driver_not_loaded, gpu_only).evidence == bare
    rocm_only = Facts(amd_gpus=(), rocm=Rocm(version="6.2.4", amdgpu_loaded=False))
    assert one(a.amdgpu_driver_not_loaded, rocm_only).evidence == bare + ("ROCm 6.2.4 is installed",)
    torch_only = Facts(rocm=Rocm(amdgpu_loaded=False), frameworks=Frameworks(torch=TorchBuild(version="2.5.1+rocm6.2", hip="6.2")))
    assert one(a.amdgpu_driver_not_loaded, torch_only).evidence == bare + ("torch is a ROCm 6.2 build",)


def test_amdgpu_driver_not_loaded_is_silent_when_loaded_unknown_or_not_wanted():
    assert run(a.amdgpu_driver_not_loaded, Facts(amd_gpus=(RX7900XTX,))) == []  # no ROCm facts
    assert run(a.amdgpu_driver_not_loaded, Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(version="6.4.1"))) == []  # loaded: unknown
    assert run(a.amdgpu_driver_not_loaded, Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(version="6.4.1", amdgpu_loaded=True))) == []
    # not loaded, but nothing AMD here: an NVIDIA (or CPU) machine simply does not need the module
    assert run(a.amdgpu_driver_not_loaded, Facts(amd_gpus=(), rocm=Rocm(amdgpu_loaded=False))) == []
    cuda_torch = Frameworks(torch=TorchBuild(version="2.8.0+cu128", cuda="12.8", build="cuda"))
    assert run(a.amdgpu_driver_not_loaded, Facts(amd_gpus=(), rocm=Rocm(amdgpu_loaded=False), frameworks=cuda_torch)) == []
    assert run(a.amdgpu_driver_not_loaded, Facts(rocm=Rocm(amdgpu_loaded=False), frameworks=Frameworks())) == []


def test_user_not_in_render_group_pinned():
    rocm = Rocm(device_groups=("render", "video"), user_groups=("alice", "video"), user_is_root=False)
    assert one(a.user_not_in_render_group, Facts(amd_gpus=(RX7900XTX,), rocm=rocm)) == Finding(
        "user-not-in-render-group", Severity.ERROR, Section.GPU,
        "This user is not in the render group: ROCm cannot open the GPU",
        ("/dev/kfd and the render nodes belong to: render, video", "this user's groups: alice, video"),
        Fix("Add the user to the groups, then log out and back in (or reboot) for it to take effect",
            ("sudo usermod -a -G render $LOGNAME",), GROUPS))


def test_user_in_neither_group_gets_both_in_one_command():
    rocm = Rocm(device_groups=("render", "video"), user_groups=(), user_is_root=False)
    finding = one(a.user_not_in_render_group, Facts(amd_gpus=(), rocm=rocm))  # not root (known): judged without a GPU list
    assert finding.title == "This user is not in the render and video groups: ROCm cannot open the GPU"
    assert finding.evidence == ("/dev/kfd and the render nodes belong to: render, video", "this user's groups: (none)")
    assert finding.fix.commands == ("sudo usermod -a -G render,video $LOGNAME",)


def test_user_not_in_render_group_only_for_the_access_groups():
    # a device owned by root's group (or any other) is not one a user is told to join
    rocm = Rocm(device_groups=("root", "render"), user_groups=("bob",), user_is_root=None)
    finding = one(a.user_not_in_render_group, Facts(amd_gpus=(RX7900XTX,), rocm=rocm))  # root unknown, but an AMD GPU is here
    assert finding.fix.commands == ("sudo usermod -a -G render $LOGNAME",)
    assert finding.evidence[0] == "/dev/kfd and the render nodes belong to: root, render"
    assert run(a.user_not_in_render_group, Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(device_groups=("root",), user_groups=("bob",), user_is_root=False))) == []


def test_user_not_in_render_group_is_silent_for_root_members_and_unknowns():
    gpus = (RX7900XTX,)
    member = Rocm(device_groups=("render", "video"), user_groups=("render", "video"), user_is_root=False)
    assert run(a.user_not_in_render_group, Facts(amd_gpus=gpus, rocm=member)) == []
    outside = dict(device_groups=("render",), user_groups=("alice",))
    assert run(a.user_not_in_render_group, Facts(amd_gpus=gpus, rocm=Rocm(user_is_root=True, **outside))) == []
    assert run(a.user_not_in_render_group, Facts(amd_gpus=gpus)) == []  # no ROCm facts
    assert run(a.user_not_in_render_group, Facts(amd_gpus=gpus, rocm=Rocm(device_groups=("render",), user_is_root=False))) == []  # groups unknown
    assert run(a.user_not_in_render_group, Facts(amd_gpus=gpus, rocm=Rocm(user_groups=("alice",), user_is_root=False))) == []  # owners unknown
    assert run(a.user_not_in_render_group, Facts(amd_gpus=gpus, rocm=Rocm(device_groups=(), user_groups=("alice",), user_is_root=False))) == []
    # root unknown and no AMD GPU known: nothing says ROCm is wanted here
    assert run(a.user_not_in_render_group, Facts(rocm=Rocm(user_is_root=None, **outside))) == []


def test_hsa_override_pinned():
    facts = Facts(host=Host(env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}), amd_gpus=(RX6700XT, AmdGpu(2, "AMD Radeon RX 6600", "gfx1032"), AmdGpu(3)))
    assert one(a.hsa_override_gfx_version_set, facts) == Finding(
        "hsa-override-gfx-version-set", Severity.INFO, Section.GPU,
        "HSA_OVERRIDE_GFX_VERSION=10.3.0: the ROCm runtime reports every GPU as gfx1030",
        ("HSA_OVERRIDE_GFX_VERSION=10.3.0",
         "the runtime then loads kernels built for that target on this GPU (really gfx1031, gfx1032)",
         "a workaround AMD does not support: it works only where the two targets share an instruction set "
         "(e.g. gfx1031/gfx1032 as gfx1030); elsewhere it crashes or computes wrong results"),
        Fix("Keep it only if the GPU has no official build; otherwise unset it", ("unset HSA_OVERRIDE_GFX_VERSION",), REQUIREMENTS))


def test_hsa_override_that_is_no_version_and_gpus_without_target():
    finding = one(a.hsa_override_gfx_version_set, Facts(host=Host(env={"HSA_OVERRIDE_GFX_VERSION": "gfx1030"}), amd_gpus=(AmdGpu(0),)))
    assert finding.title == "HSA_OVERRIDE_GFX_VERSION=gfx1030: the ROCm runtime reports every GPU as another target"
    assert finding.evidence[1] == "the runtime then loads kernels built for that target on this GPU"


def test_hsa_override_is_silent_when_unset_empty_or_unknown():
    assert run(a.hsa_override_gfx_version_set, Facts(host=Host(env={}), amd_gpus=(RX6700XT,))) == []
    assert run(a.hsa_override_gfx_version_set, Facts(host=Host(env={"HSA_OVERRIDE_GFX_VERSION": ""}), amd_gpus=(RX6700XT,))) == []
    assert run(a.hsa_override_gfx_version_set, Facts(host=Host(env=None), amd_gpus=(RX6700XT,))) == []
    assert run(a.hsa_override_gfx_version_set, Facts()) == []


def test_override_target_reads_major_minor_stepping_as_hex_digits():
    assert a.override_target("10.3.0") == "gfx1030"
    assert a.override_target("9.0.10") == "gfx90a"
    assert a.override_target(" 11.0.0\n") == "gfx1100"
    assert a.override_target("99.15.15") == "gfx99ff"  # each part at its limit
    assert a.override_target("0.0.0") == "gfx000"


def test_override_target_refuses_what_is_no_target():
    for value in ("100.0.0", "10.16.0", "10.3.16",  # one past each limit
                  "10.3", "10.3.0.1", "", "10.x.0", "10.3.-1", "gfx1030"):
        assert a.override_target(value) is None, value



def test_rocminfo_saying_the_module_is_not_loaded_is_its_own_sign_of_rocm():
    # https://github.com/ROCm/legacy-rocm-build/issues/1794: rocminfo inside WSL2, "ROCk module is NOT loaded"
    from gpudoctor.evidence import read_evidence

    facts = read_evidence("Running` /opt/rocm-5.2.3/bin/rocminfo` I get:\n\n`ROCk module is NOT loaded, possibly no GPU devices`\n", "paste")
    assert facts.rocm.amdgpu_loaded is False
    (f,) = run(a.amdgpu_driver_not_loaded, facts)
    assert f.evidence == ("rocminfo: ROCk module is NOT loaded",) and f.fix.commands[0] == "sudo modprobe amdgpu"
    loaded = read_evidence("ROCk module version 6.3.6 is loaded\n", "paste")
    assert loaded.rocm.amdgpu_loaded is True


def test_inside_wsl_the_fix_is_amds_wsl_route_not_modprobe():
    from gpudoctor.model import Host

    (f,) = run(a.amdgpu_driver_not_loaded, Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(amdgpu_loaded=False), host=Host(os="linux", wsl=2)))
    assert f.title == "ROCm installed for Linux inside WSL finds no amdgpu kernel driver: WSL has none"
    assert f.evidence[-1] == "WSL 2" and "modprobe" not in " ".join(f.fix.commands)


def test_inside_wsl_pinned():
    # https://github.com/ROCm/legacy-rocm-build/issues/1794: rocminfo inside WSL2 says "ROCk module is NOT loaded"
    facts = Facts(amd_gpus=(RX7900XTX,), rocm=Rocm(version="6.1.3", amdgpu_loaded=False), host=Host(os="linux", wsl=2),
                  provenance={"rocm.amdgpu_loaded": "rocminfo, line 3 (rocminfo prints this when the amdgpu (ROCk) module is not loaded)"})
    assert run(a.amdgpu_driver_not_loaded, facts) == [Finding(
        "amdgpu-driver-not-loaded", Severity.ERROR, Section.GPU,
        "ROCm installed for Linux inside WSL finds no amdgpu kernel driver: WSL has none",
        ("rocminfo: ROCk module is NOT loaded", "ROCm 6.1.3 is installed", "WSL 2"),
        Fix("Use AMD's ROCm-on-WSL install (Radeon software for WSL with ROCm), not the native Linux installer; or run ROCm on native Linux",
            ("rocminfo | grep -E 'Name|Marketing'   # after AMD's WSL install",),
            "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html"))]
