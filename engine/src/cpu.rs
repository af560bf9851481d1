//! The instruction sets this binary was compiled to use, against those of the CPU it runs on: a
//! build for a newer CPU would otherwise die of an illegal instruction without a word. Also the
//! slider lookup the build chose (`SLIDERS`), which `board::attacks` indexes by.

pub mod sliders;

use sliders::{CpuId, SliderLookup};

/// The slider lookup of this build. `pext_sliders` comes from the build script, which sets it
/// only for a target with BMI2; the target feature is checked too, so PEXT is never compiled in
/// without it.
pub const SLIDERS: SliderLookup = if cfg!(all(pext_sliders, target_feature = "bmi2")) {
    SliderLookup::Pext
} else {
    SliderLookup::Magic
};

/// The features of the x86-64 levels (v2 to v4, which `scripts/release.sh` builds for) that this
/// build assumes and this CPU lacks; left out are cmpxchg16b, lahfsahf, movbe and xsave, which
/// CPUs with the rest of their level have. A `target-cpu=native` build may assume more.
pub fn missing_features() -> Vec<&'static str> {
    features()
        .into_iter()
        .filter_map(|(name, assumed, present)| (assumed && !present).then_some(name))
        .collect()
}

/// A warning for a build with PEXT slider lookups run on a CPU that executes PEXT as slow
/// microcode (AMD before Zen 3): such a build works, but searches slower than one without PEXT.
pub fn slow_sliders_warning() -> Option<String> {
    slow_sliders_warning_for(SLIDERS, &CpuId::read()?)
}

fn slow_sliders_warning_for(build: SliderLookup, cpu: &CpuId) -> Option<String> {
    (build == SliderLookup::Pext && cpu.slider_lookup() == SliderLookup::Magic).then(|| {
        format!(
            "this build uses PEXT slider lookups, which this CPU ({} family {} model {}) runs \
             as slow microcode; the x86-64-avx2 build, or one made with `make` on this CPU, \
             searches faster",
            cpu.vendor, cpu.family, cpu.model
        )
    })
}

/// Each feature's name, whether this build assumes it, and whether this CPU and OS have it.
/// Read from CPUID itself: `is_x86_feature_detected!` answers yes, unasked, for any feature the
/// build assumes.
#[cfg(target_arch = "x86_64")]
fn features() -> [(&'static str, bool, bool); 17] {
    // SAFETY: every x86-64 CPU has the CPUID instruction (a safe function from Rust 1.87 on).
    #[allow(unused_unsafe)]
    let cpuid = |leaf: u32| unsafe { std::arch::x86_64::__cpuid_count(leaf, 0) };
    // A leaf beyond the highest one the CPU has answers with another leaf's data.
    let (highest, highest_extended) = (cpuid(0).eax, cpuid(0x8000_0000).eax);
    let ecx1 = cpuid(1).ecx;
    let ebx7 = if highest >= 7 { cpuid(7).ebx } else { 0 };
    let ecx_extended = if highest_extended >= 0x8000_0001 {
        cpuid(0x8000_0001).ecx
    } else {
        0
    };
    let bit = |register: u32, bit: u32| register >> bit & 1 == 1;
    // AVX and AVX-512 instructions also need the OS to save their registers on a context switch
    // (XCR0: bits 1-2 for SSE and AVX state, 5-7 for AVX-512's); without that they fault.
    let os_saves = |state: u64| {
        // SAFETY: OSXSAVE (leaf 1 ECX bit 27) says the OS enabled XGETBV.
        bit(ecx1, 27) && unsafe { std::arch::x86_64::_xgetbv(0) } & state == state
    };
    let (avx_state, avx512_state) = (os_saves(0b110), os_saves(0b1110_0110));
    macro_rules! feature {
        ($name:tt, $present:expr) => {
            ($name, cfg!(target_feature = $name), $present)
        };
    }
    [
        feature!("popcnt", bit(ecx1, 23)),
        feature!("sse3", bit(ecx1, 0)),
        feature!("ssse3", bit(ecx1, 9)),
        feature!("sse4.1", bit(ecx1, 19)),
        feature!("sse4.2", bit(ecx1, 20)),
        feature!("avx", avx_state && bit(ecx1, 28)),
        feature!("fma", avx_state && bit(ecx1, 12)),
        feature!("f16c", avx_state && bit(ecx1, 29)),
        feature!("avx2", avx_state && bit(ebx7, 5)),
        feature!("bmi1", bit(ebx7, 3)),
        feature!("bmi2", bit(ebx7, 8)),
        feature!("avx512f", avx512_state && bit(ebx7, 16)),
        feature!("avx512dq", avx512_state && bit(ebx7, 17)),
        feature!("avx512cd", avx512_state && bit(ebx7, 28)),
        feature!("avx512bw", avx512_state && bit(ebx7, 30)),
        feature!("avx512vl", avx512_state && bit(ebx7, 31)),
        feature!("lzcnt", bit(ecx_extended, 5)),
    ]
}

#[cfg(not(target_arch = "x86_64"))]
fn features() -> [(&'static str, bool, bool); 0] {
    []
}

#[cfg(test)]
mod slider_tests {
    use super::*;

    /// A native build (the default) uses the lookup that suits the CPU it was built on.
    #[test]
    fn native_build_uses_the_lookup_this_cpu_suits() {
        match env!("PATINA_SLIDERS_CHOSEN_BY") {
            "native" => {
                let cpu = CpuId::read().expect("a native build reads CPUID");
                assert_eq!(SLIDERS, cpu.slider_lookup(), "{cpu:?}");
            }
            "PATINA_SLIDERS" => {
                let forced = option_env!("PATINA_SLIDERS").unwrap_or_default();
                assert_eq!(SLIDERS.name(), forced);
            }
            chosen_by => assert_eq!(chosen_by, "target"),
        }
    }

    fn cpu(vendor: &str, family: u32, model: u32) -> CpuId {
        CpuId {
            vendor: vendor.to_string(),
            family,
            model,
            has_bmi2: true,
        }
    }

    #[test]
    fn a_pext_build_on_zen_2_points_at_the_avx2_build() {
        let zen2 = cpu("AuthenticAMD", 23, 0x31);
        let warning = slow_sliders_warning_for(SliderLookup::Pext, &zen2).expect("a warning");
        assert!(warning.contains("x86-64-avx2"), "{warning}");
        assert!(warning.contains("family 23 model 49"), "{warning}");
        assert_eq!(slow_sliders_warning_for(SliderLookup::Magic, &zen2), None);
    }

    #[test]
    fn no_warning_where_pext_is_fast() {
        for fast in [cpu("AuthenticAMD", 25, 0x11), cpu("GenuineIntel", 6, 0xA7)] {
            assert_eq!(slow_sliders_warning_for(SliderLookup::Pext, &fast), None);
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Against std's detection, which also asks the OS whether it saves the AVX registers.
    /// std says yes to any feature the build assumes, so on a machine with more than the build
    /// assumes this checks the bits of the extra ones, and the build's own must be present.
    #[test]
    fn cpuid_bits_agree_with_std_detection() {
        macro_rules! detected {
            ($name:expr, $($feature:tt),*) => {
                match $name {
                    $($feature => std::arch::is_x86_feature_detected!($feature),)*
                    _ => unreachable!(),
                }
            };
        }
        for (name, _, present) in features() {
            let detected = detected!(
                name, "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2", "avx", "fma", "f16c", "avx2",
                "bmi1", "bmi2", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl", "lzcnt"
            );
            assert_eq!(present, detected, "{name}");
        }
        assert_eq!(missing_features(), Vec::<&str>::new());
    }
}
