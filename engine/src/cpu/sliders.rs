//! Which slider lookup suits a CPU: PEXT, or magic multiplication. PEXT is one fast instruction
//! on Intel (Haswell on) and AMD from Zen 3 on, but microcode on AMD before Zen 3 (family 23,
//! Zen 1 and 2; family 21, Excavator; Hygon's family 24, a Zen 1), where one PEXT takes tens to
//! hundreds of cycles and magic multiplication is far faster.
//!
//! The build script compiles this file too (`#[path]`), so the rule that picks the lookup for a
//! native build and the rule that warns at start-up are one code, tested in the engine's tests.
//! It uses nothing but core and std.

/// How sliding-piece attacks are indexed in their tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SliderLookup {
    /// BMI2's PEXT gathers the blockers' bits into the index.
    Pext,
    /// A multiplication by a magic number and a shift give the index.
    Magic,
}

impl SliderLookup {
    pub const fn name(self) -> &'static str {
        match self {
            SliderLookup::Pext => "pext",
            SliderLookup::Magic => "magic",
        }
    }
}

/// The lookup for a CPU from its CPUID vendor string, its family and model (decoded as
/// `family_and_model` does) and whether it has BMI2. Every model of an AMD family is alike
/// here: the model is taken so that a rule by model (should one be needed) stays in this one place.
pub fn slider_lookup_for(vendor: &str, family: u32, _model: u32, has_bmi2: bool) -> SliderLookup {
    let slow_pext = match vendor {
        // Family 25 is Zen 3 and 4, 26 Zen 5: PEXT in hardware.
        "AuthenticAMD" => family < 25,
        "HygonGenuine" => true,
        _ => false,
    };
    if has_bmi2 && !slow_pext {
        SliderLookup::Pext
    } else {
        SliderLookup::Magic
    }
}

/// Family and model from CPUID leaf 1's EAX, as the vendors' manuals define them: the extended
/// family is added only when the base family is 0xF, and the extended model is the high nibble
/// only when the base family is 0x6 or 0xF.
#[cfg(any(target_arch = "x86_64", test))]
pub fn family_and_model(eax: u32) -> (u32, u32) {
    let base_family = eax >> 8 & 0xF;
    let base_model = eax >> 4 & 0xF;
    let family = if base_family == 0xF {
        base_family + (eax >> 20 & 0xFF)
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xF {
        (eax >> 16 & 0xF) << 4 | base_model
    } else {
        base_model
    };
    (family, model)
}

/// The CPU this code runs on, as CPUID describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuId {
    pub vendor: String,
    pub family: u32,
    pub model: u32,
    pub has_bmi2: bool,
}

impl CpuId {
    #[cfg(target_arch = "x86_64")]
    pub fn read() -> Option<CpuId> {
        // SAFETY: every x86-64 CPU has the CPUID instruction (a safe function from Rust 1.87 on).
        #[allow(unused_unsafe)]
        let cpuid = |leaf: u32| unsafe { std::arch::x86_64::__cpuid_count(leaf, 0) };
        let leaf0 = cpuid(0);
        let vendor: Vec<u8> = [leaf0.ebx, leaf0.edx, leaf0.ecx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .collect();
        let (family, model) = family_and_model(cpuid(1).eax);
        Some(CpuId {
            vendor: String::from_utf8_lossy(&vendor).into_owned(),
            family,
            model,
            has_bmi2: leaf0.eax >= 7 && cpuid(7).ebx >> 8 & 1 == 1,
        })
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub fn read() -> Option<CpuId> {
        None
    }

    pub fn slider_lookup(&self) -> SliderLookup {
        slider_lookup_for(&self.vendor, self.family, self.model, self.has_bmi2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SliderLookup::{Magic, Pext};

    /// CPUID leaf 1 EAX from family, model and stepping, encoded as the CPU does.
    fn eax(family: u32, model: u32, stepping: u32) -> u32 {
        let (base_family, extended_family) = if family >= 0xF {
            (0xF, family - 0xF)
        } else {
            (family, 0)
        };
        extended_family << 20
            | (model >> 4) << 16
            | base_family << 8
            | (model & 0xF) << 4
            | stepping
    }

    fn lookup(vendor: &str, leaf1_eax: u32, has_bmi2: bool) -> SliderLookup {
        let (family, model) = family_and_model(leaf1_eax);
        slider_lookup_for(vendor, family, model, has_bmi2)
    }

    #[test]
    fn family_and_model_decode_as_cpuid_defines_them() {
        // Raw EAX values as the CPUs report them.
        assert_eq!(
            family_and_model(0x00A1_0F11),
            (25, 0x11),
            "EPYC Genoa, Zen 4"
        );
        assert_eq!(
            family_and_model(0x0083_0F10),
            (23, 0x31),
            "EPYC Rome, Zen 2"
        );
        assert_eq!(
            family_and_model(0x0080_0F12),
            (23, 0x01),
            "EPYC Naples, Zen 1"
        );
        assert_eq!(family_and_model(0x00B4_0F40), (26, 0x44), "Zen 5");
        assert_eq!(
            family_and_model(0x0066_0F01),
            (21, 0x60),
            "Carrizo, Excavator"
        );
        assert_eq!(family_and_model(0x0009_06A3), (6, 0x9A), "Alder Lake");
        assert_eq!(
            family_and_model(0x0005_06F1),
            (6, 0x5F),
            "Goldmont: model 95"
        );
        // Base family 5: no extended model, so the high bits are ignored.
        assert_eq!(family_and_model(0x0001_0543), (5, 4));
        assert_eq!(family_and_model(eax(23, 0x71, 0)), (23, 0x71));
    }

    #[test]
    fn intel_with_bmi2_uses_pext() {
        assert_eq!(lookup("GenuineIntel", eax(6, 0xA7, 1), true), Pext);
        assert_eq!(lookup("GenuineIntel", eax(6, 0xCF, 2), true), Pext);
        assert_eq!(
            lookup("GenuineIntel", eax(6, 0x3C, 3), true),
            Pext,
            "Haswell"
        );
    }

    #[test]
    fn amd_before_zen_3_uses_magic() {
        for model in [0x01, 0x08, 0x31, 0x71] {
            assert_eq!(
                lookup("AuthenticAMD", eax(23, model, 0), true),
                Magic,
                "Zen 1/2 {model:#x}"
            );
        }
        assert_eq!(
            lookup("AuthenticAMD", eax(21, 0x60, 1), true),
            Magic,
            "Excavator"
        );
        assert_eq!(
            lookup("AuthenticAMD", eax(22, 0x30, 1), true),
            Magic,
            "Puma"
        );
        assert_eq!(
            lookup("HygonGenuine", eax(24, 0x00, 1), true),
            Magic,
            "Dhyana"
        );
    }

    #[test]
    fn amd_from_zen_3_on_uses_pext() {
        assert_eq!(
            lookup("AuthenticAMD", 0x00A1_0F11, true),
            Pext,
            "Zen 4, this project's machine"
        );
        assert_eq!(
            lookup("AuthenticAMD", eax(25, 0x01, 1), true),
            Pext,
            "Zen 3"
        );
        assert_eq!(
            lookup("AuthenticAMD", eax(25, 0x61, 2), true),
            Pext,
            "Zen 4"
        );
        assert_eq!(
            lookup("AuthenticAMD", eax(26, 0x44, 0), true),
            Pext,
            "Zen 5"
        );
    }

    #[test]
    fn without_bmi2_magic_is_the_only_choice() {
        assert_eq!(lookup("GenuineIntel", eax(6, 0x3A, 9), false), Magic);
        assert_eq!(lookup("AuthenticAMD", eax(25, 0x01, 1), false), Magic);
        assert_eq!(lookup("AuthenticAMD", eax(23, 0x31, 0), false), Magic);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn this_cpu_is_read_as_std_detects_it() {
        let cpu = CpuId::read().expect("x86-64 has CPUID");
        assert_eq!(cpu.has_bmi2, std::arch::is_x86_feature_detected!("bmi2"));
        assert_eq!(cpu.vendor.len(), 12, "{:?}", cpu.vendor);
        assert!(cpu.family >= 6, "{cpu:?}");
    }
}
