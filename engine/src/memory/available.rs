//! How much memory this process can still take without swapping or being killed, as Linux tells
//! it: the machine's MemAvailable, or less where the process's memory cgroup (a container's
//! limit, which MemAvailable does not show) leaves less room.

use std::fs::read_to_string;
use std::path::{Path, PathBuf};

/// `None` where the OS says nothing (not Linux, or /proc unreadable).
pub fn available_bytes() -> Option<usize> {
    let machine = read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_available(&text));
    let group = MemoryCgroup::of_process().and_then(|cgroup| cgroup.headroom());
    machine.into_iter().chain(group).min()
}

/// The MemAvailable line of a /proc/meminfo text, in bytes.
fn mem_available(meminfo: &str) -> Option<usize> {
    let value = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?;
    let kib: usize = value.trim().strip_suffix("kB")?.trim_end().parse().ok()?;
    kib.checked_mul(1024)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Hierarchy {
    V1,
    V2,
}

/// Where a group of a hierarchy keeps its memory figures.
struct Files {
    limit: &'static str,
    usage: &'static str,
    /// memory.stat keys of the group's page cache (whole subtree), which the kernel reclaims
    /// before it refuses memory, as MemAvailable counts it free.
    page_cache: [&'static str; 2],
}

impl Hierarchy {
    fn files(self) -> Files {
        match self {
            Hierarchy::V1 => Files {
                limit: "memory.limit_in_bytes",
                usage: "memory.usage_in_bytes",
                page_cache: ["total_active_file", "total_inactive_file"],
            },
            Hierarchy::V2 => Files {
                limit: "memory.max",
                usage: "memory.current",
                page_cache: ["active_file", "inactive_file"],
            },
        }
    }
}

#[derive(Debug, PartialEq)]
struct MemoryCgroup {
    hierarchy: Hierarchy,
    /// Where the hierarchy is mounted: its groups above this point cannot be read.
    mount: PathBuf,
    /// The process's group.
    dir: PathBuf,
}

impl MemoryCgroup {
    fn of_process() -> Option<Self> {
        let cgroups = read_to_string("/proc/self/cgroup").ok()?;
        let mounts = read_to_string("/proc/self/mountinfo").ok()?;
        Self::find(&cgroups, &mounts)
    }

    /// The group the memory controller applies, from /proc/self/cgroup and
    /// /proc/self/mountinfo texts: in the v1 hierarchy holding the controller where there is
    /// one (`4:memory:/path`), else in the v2 one (`0::/path`). `None` where that hierarchy is
    /// not mounted or the mount does not reach the group.
    fn find(cgroups: &str, mountinfo: &str) -> Option<Self> {
        let mut unified = None;
        for line in cgroups.lines() {
            let mut fields = line.splitn(3, ':');
            let (Some(_), Some(controllers), Some(path)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            if controllers.split(',').any(|c| c == "memory") {
                return Self::mounted(Hierarchy::V1, path, mountinfo);
            }
            if controllers.is_empty() {
                unified = Some(path);
            }
        }
        Self::mounted(Hierarchy::V2, unified?, mountinfo)
    }

    /// The group at `path` of `hierarchy` where mountinfo shows it mounted (lines of `id parent
    /// device root mount-point options [tags] - type source super-options`). A container's
    /// mount often starts at its own group (root `/docker/<id>`): the path is below that root.
    fn mounted(hierarchy: Hierarchy, path: &str, mountinfo: &str) -> Option<Self> {
        mountinfo.lines().find_map(|line| {
            let (mount, filesystem) = line.split_once(" - ")?;
            let mut filesystem = filesystem.split(' ');
            let (kind, _, options) = (filesystem.next()?, filesystem.next()?, filesystem.next()?);
            let holds_memory = match hierarchy {
                Hierarchy::V1 => kind == "cgroup" && options.split(',').any(|o| o == "memory"),
                Hierarchy::V2 => kind == "cgroup2",
            };
            if !holds_memory {
                return None;
            }
            let mut mount = mount.split(' ').skip(3);
            let (root, mount_point) = (mount.next()?, mount.next()?);
            let below_root = Path::new(path).strip_prefix(root).ok()?;
            Some(Self {
                hierarchy,
                mount: PathBuf::from(mount_point),
                dir: Path::new(mount_point).join(below_root),
            })
        })
    }

    /// The least room under any limit from the group up to the mount: a parent's limit binds
    /// its children too. `None` without a limit, or if the group's folder is not there (the
    /// mount's own folder would be some other group).
    fn headroom(&self) -> Option<usize> {
        if !self.dir.is_dir() {
            return None;
        }
        self.dir
            .ancestors()
            .take_while(|dir| dir.starts_with(&self.mount))
            .filter_map(|dir| self.room_in(dir))
            .min()
    }

    /// The limit of the group at `dir` less its use, not counting page cache; `None` where
    /// there is no limit ("max") or the files cannot be read.
    fn room_in(&self, dir: &Path) -> Option<usize> {
        let files = self.hierarchy.files();
        // A 32-bit usize cannot hold v1's "no limit" (2^63): saturated, it is still no limit.
        let number = |file| {
            let value: u64 = read_to_string(dir.join(file)).ok()?.trim().parse().ok()?;
            Some(usize::try_from(value).unwrap_or(usize::MAX))
        };
        let (limit, usage) = (number(files.limit)?, number(files.usage)?);
        let stat = read_to_string(dir.join("memory.stat")).unwrap_or_default();
        let page_cache: usize = files
            .page_cache
            .iter()
            .filter_map(|key| stat_value(&stat, key))
            .sum();
        Some(limit.saturating_sub(usage.saturating_sub(page_cache)))
    }
}

/// The value of `key` in a memory.stat text (lines of `key value`).
fn stat_value(stat: &str, key: &str) -> Option<usize> {
    stat.lines().find_map(|line| {
        let (name, value) = line.split_once(' ')?;
        (name == key).then(|| value.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn mem_available_reads_the_meminfo_line() {
        let meminfo = "MemTotal:       24554764 kB\nMemFree:        22006480 kB\n\
                       MemAvailable:   23912344 kB\nBuffers:          134636 kB\n";
        assert_eq!(mem_available(meminfo), Some(23912344 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots\n"), None);
    }

    const MOUNTS: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 /docker/ab /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
";

    #[test]
    fn the_group_is_found_where_its_hierarchy_is_mounted() {
        let cgroup = |cgroups| MemoryCgroup::find(cgroups, MOUNTS);
        let v1 = cgroup("5:cpu:/x\n4:memory:/docker/ab/c\n0::/\n").unwrap();
        assert_eq!(v1.hierarchy, Hierarchy::V1);
        assert_eq!(v1.mount, Path::new("/sys/fs/cgroup/memory"));
        assert_eq!(
            v1.dir,
            Path::new("/sys/fs/cgroup/memory/c"),
            "below the mount's root"
        );
        assert_eq!(
            cgroup("4:memory:/other\n"),
            None,
            "outside what the mount shows"
        );
        let v2 = cgroup("0::/user.slice/session-2.scope\n").unwrap();
        assert_eq!(v2.hierarchy, Hierarchy::V2);
        assert_eq!(
            v2.dir,
            Path::new("/sys/fs/cgroup/unified/user.slice/session-2.scope")
        );
        assert_eq!(cgroup("3:cpu:/\nnot a line\n"), None);
        assert_eq!(MemoryCgroup::find("0::/\n", ""), None, "nothing mounted");
    }

    #[test]
    fn stat_keys_match_whole() {
        let stat = "total_inactive_file 300\ninactive_file 200\nactive_file 100\n";
        assert_eq!(stat_value(stat, "inactive_file"), Some(200));
        assert_eq!(stat_value(stat, "total_inactive_file"), Some(300));
        assert_eq!(stat_value(stat, "file"), None);
    }

    fn write(dir: &Path, files: &[(&str, String)]) {
        std::fs::create_dir_all(dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }

    fn v2_group(limit: &str, usage: usize, page_cache: [usize; 2]) -> [(&str, String); 3] {
        [
            ("memory.max", format!("{limit}\n")),
            ("memory.current", format!("{usage}\n")),
            (
                "memory.stat",
                format!(
                    "anon 1\nactive_file {}\ninactive_file {}\n",
                    page_cache[0], page_cache[1]
                ),
            ),
        ]
    }

    /// mount/a/b/c: the tightest limit on the way up binds, whether above or below a looser
    /// one, and nothing above the mount counts.
    #[test]
    fn the_tightest_limit_up_to_the_mount_binds() {
        let top = tempfile::tempdir().unwrap();
        let mount = top.path().join("mount");
        write(top.path(), &v2_group("1", 0, [0, 0]));
        write(&mount, &v2_group("max", 900 * MIB, [0, 0]));
        write(
            &mount.join("a"),
            &v2_group(&(800 * MIB).to_string(), 500 * MIB, [0, 0]),
        );
        write(
            &mount.join("a/b"),
            &v2_group(&(300 * MIB).to_string(), 250 * MIB, [64 * MIB, 32 * MIB]),
        );
        write(&mount.join("a/b/c"), &v2_group("max", 100 * MIB, [0, 0]));
        let cgroup = |dir: &str| MemoryCgroup {
            hierarchy: Hierarchy::V2,
            mount: mount.clone(),
            dir: mount.join(dir),
        };
        // b: 300 MiB less the 250 - 96 MiB that is not page cache; a leaves 300 MiB.
        assert_eq!(cgroup("a/b/c").headroom(), Some(146 * MIB));
        assert_eq!(cgroup("a").headroom(), Some(300 * MIB));
        assert_eq!(cgroup("").headroom(), None, "the mount has no limit");
        assert_eq!(
            cgroup("gone").headroom(),
            None,
            "the mount's limits are not the group's"
        );
    }

    #[test]
    fn a_v1_group_reads_its_own_files() {
        let mount = tempfile::tempdir().unwrap();
        let stat = format!(
            "active_file 1\ninactive_file 1\ntotal_active_file {}\ntotal_inactive_file {}\n",
            16 * MIB,
            48 * MIB
        );
        write(
            mount.path(),
            &[
                ("memory.limit_in_bytes", (1024 * MIB).to_string()),
                ("memory.usage_in_bytes", (512 * MIB).to_string()),
                ("memory.stat", stat),
            ],
        );
        let cgroup = MemoryCgroup {
            hierarchy: Hierarchy::V1,
            mount: mount.path().to_owned(),
            dir: mount.path().to_owned(),
        };
        assert_eq!(cgroup.headroom(), Some(1024 * MIB - (512 - 64) * MIB));
    }
}
