//! How much memory this process can still take without swapping or being killed, as Linux tells
//! it: the machine's MemAvailable, or less where the process's memory cgroup (a container's
//! limit, which MemAvailable does not show) leaves less room.

use std::fs::read_to_string;
use std::path::{Path, PathBuf};

/// `None` where the OS says nothing (not Linux, or /proc unreadable).
pub fn available_bytes() -> Option<usize> {
    let machine = mem_available(&read_to_string("/proc/meminfo").ok()?)?;
    let group = read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| MemoryCgroup::of_process(&text))
        .and_then(|cgroup| cgroup.headroom());
    Some(group.map_or(machine, |room| room.min(machine)))
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

impl Hierarchy {
    /// Where the hierarchy is usually mounted.
    fn mount(self) -> &'static Path {
        Path::new(match self {
            Hierarchy::V1 => "/sys/fs/cgroup/memory",
            Hierarchy::V2 => "/sys/fs/cgroup",
        })
    }

    /// The files of a group's limit and usage, and the memory.stat key of its inactive page
    /// cache.
    fn files(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Hierarchy::V1 => (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
            ),
            Hierarchy::V2 => ("memory.max", "memory.current", "inactive_file"),
        }
    }
}

#[derive(Debug, PartialEq)]
struct MemoryCgroup {
    hierarchy: Hierarchy,
    /// The hierarchy's mount point.
    root: PathBuf,
    /// The group, relative to the root.
    group: PathBuf,
}

impl MemoryCgroup {
    /// The group of a /proc/self/cgroup text that the memory controller applies: the v1
    /// hierarchy holding it (`4:memory:/path`) where there is one, else the v2 one (`0::/path`).
    fn of_process(proc_cgroup: &str) -> Option<Self> {
        let mut unified = None;
        for line in proc_cgroup.lines() {
            let mut fields = line.splitn(3, ':');
            let (Some(_), Some(controllers), Some(path)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let hierarchy = if controllers.split(',').any(|c| c == "memory") {
                Hierarchy::V1
            } else if controllers.is_empty() {
                Hierarchy::V2
            } else {
                continue;
            };
            let cgroup = Self {
                hierarchy,
                root: hierarchy.mount().to_owned(),
                group: PathBuf::from(path.trim_start_matches('/')),
            };
            if hierarchy == Hierarchy::V1 {
                return Some(cgroup);
            }
            unified = Some(cgroup);
        }
        unified
    }

    /// The least room under any limit from the group up to the root: a parent's limit binds its
    /// children too. A container often sees its own group as the root, and the path the
    /// process is listed under does not exist there; then the root is the group.
    fn headroom(&self) -> Option<usize> {
        let own = self.root.join(&self.group);
        let start = if own.is_dir() { own } else { self.root.clone() };
        start
            .ancestors()
            .take_while(|dir| dir.starts_with(&self.root))
            .filter_map(|dir| self.room_in(dir))
            .min()
    }

    /// The limit of the group at `dir` less its use, not counting the inactive page cache the
    /// kernel reclaims before it would refuse memory; `None` where there is no limit ("max")
    /// or the files cannot be read.
    fn room_in(&self, dir: &Path) -> Option<usize> {
        let (limit, usage, inactive_key) = self.hierarchy.files();
        let number = |file| {
            read_to_string(dir.join(file))
                .ok()?
                .trim()
                .parse::<usize>()
                .ok()
        };
        let (limit, usage) = (number(limit)?, number(usage)?);
        let inactive = read_to_string(dir.join("memory.stat"))
            .ok()
            .and_then(|stat| stat_value(&stat, inactive_key))
            .unwrap_or(0);
        Some(limit.saturating_sub(usage.saturating_sub(inactive)))
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

    const GIB: usize = 1 << 30;

    #[test]
    fn mem_available_reads_the_meminfo_line() {
        let meminfo = "MemTotal:       24554764 kB\nMemFree:        22006480 kB\n\
                       MemAvailable:   23912344 kB\nBuffers:          134636 kB\n";
        assert_eq!(mem_available(meminfo), Some(23912344 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots\n"), None);
    }

    #[test]
    fn the_memory_controller_picks_the_hierarchy() {
        let v1 = MemoryCgroup::of_process("5:cpu,cpuacct:/x\n4:memory:/docker/ab\n0::/\n").unwrap();
        assert_eq!(v1.hierarchy, Hierarchy::V1);
        assert_eq!(v1.root, Path::new("/sys/fs/cgroup/memory"));
        assert_eq!(v1.group, Path::new("docker/ab"));
        let v2 = MemoryCgroup::of_process("0::/user.slice/session-2.scope\n").unwrap();
        assert_eq!(v2.hierarchy, Hierarchy::V2);
        assert_eq!(
            v2.root.join(&v2.group),
            Path::new("/sys/fs/cgroup/user.slice/session-2.scope")
        );
        assert_eq!(MemoryCgroup::of_process("3:cpu:/\nnot a line\n"), None);
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

    /// A v2 tree: a limited parent, an unlimited child holding the process.
    #[test]
    fn the_tightest_limit_on_the_way_up_binds() {
        let root = tempfile::tempdir().unwrap();
        let parent = root.path().join("a");
        write(
            &parent,
            &[
                ("memory.max", format!("{}\n", 2 * GIB)),
                ("memory.current", format!("{}\n", GIB)),
                (
                    "memory.stat",
                    format!("anon 1\ninactive_file {}\n", GIB / 4),
                ),
            ],
        );
        write(
            &parent.join("b"),
            &[
                ("memory.max", "max\n".into()),
                ("memory.current", "0\n".into()),
            ],
        );
        let cgroup = |group: &str| MemoryCgroup {
            hierarchy: Hierarchy::V2,
            root: root.path().to_owned(),
            group: group.into(),
        };
        // 2 GiB less the 3/4 GiB in use that cannot be reclaimed.
        assert_eq!(cgroup("a/b").headroom(), Some(2 * GIB - 3 * GIB / 4));
        assert_eq!(cgroup("").headroom(), None, "the root has no limit");
        // Listed under a path the container cannot see: its root is its group.
        write(
            root.path(),
            &[
                ("memory.max", GIB.to_string()),
                ("memory.current", "4096".into()),
            ],
        );
        assert_eq!(cgroup("docker/ab").headroom(), Some(GIB - 4096));
    }

    #[test]
    fn a_v1_group_reads_its_own_files() {
        let root = tempfile::tempdir().unwrap();
        write(
            root.path(),
            &[
                ("memory.limit_in_bytes", GIB.to_string()),
                ("memory.usage_in_bytes", (GIB / 2).to_string()),
                (
                    "memory.stat",
                    format!("inactive_file 1\ntotal_inactive_file {}\n", GIB / 8),
                ),
            ],
        );
        let cgroup = MemoryCgroup {
            hierarchy: Hierarchy::V1,
            root: root.path().to_owned(),
            group: PathBuf::new(),
        };
        assert_eq!(cgroup.headroom(), Some(GIB - (GIB / 2 - GIB / 8)));
    }
}
