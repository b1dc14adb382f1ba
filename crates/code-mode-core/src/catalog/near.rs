//! How close a misspelt name is to a real one: the edit distance between the
//! two after lower-casing and dropping `_`, `-` and `.`, and whether one
//! starts with the other (`docs/catalog.md`, suggestions).

/// Lower-cased, without `_`, `-` and `.`: `Read_File` and `readfile` meet.
pub(crate) fn normalize(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Points for a candidate close to the needle (both normalized): 60 when
/// they are equal, 40, 30 or 20 for 1, 2 or 3 edits (a swap of two
/// neighbours counts as one) within the needle's allowance, 20 when one
/// starts with the other; 0 otherwise. The allowance grows with the
/// needle: 1 edit up to 4 characters, 2 up to 10, 3 beyond.
pub(crate) fn near_miss(needle: &str, candidate: &str) -> u32 {
    let (a, b): (Vec<char>, Vec<char>) = (needle.chars().collect(), candidate.chars().collect());
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let allowance = match a.len() {
        0..=4 => 1,
        5..=10 => 2,
        _ => 3,
    };
    let edits = match distance(&a, &b, allowance) {
        Some(0) => return 60,
        Some(edits) => 50 - 10 * edits as u32,
        None => 0,
    };
    let shorter = a.len().min(b.len());
    let prefix = shorter >= 3 && (a.starts_with(&b[..]) || b.starts_with(&a[..]));
    edits.max(if prefix { 20 } else { 0 })
}

/// The optimal-string-alignment distance between `a` and `b` when it is at
/// most `max`, computed in a band of `2 * max + 1` cells per row: linear in
/// the length, so a 4 KiB needle costs no more than a short one per entry.
fn distance(a: &[char], b: &[char], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    const FAR: usize = usize::MAX / 2;
    let width = b.len() + 1;
    // Three rows: the one before the previous (for swaps), the previous
    // (row 0 to begin with), and the one being filled.
    let mut rows = [vec![FAR; width], vec![FAR; width], vec![FAR; width]];
    for (j, cell) in rows[1].iter_mut().enumerate().take(max + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (low, high) = (i.saturating_sub(max), (i + max).min(b.len()));
        rows[2].fill(FAR);
        let mut best = FAR;
        if low == 0 {
            rows[2][0] = i;
            best = i;
        }
        for j in low.max(1)..=high {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut cell = (rows[1][j - 1] + cost)
                .min(rows[1][j] + 1)
                .min(rows[2][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cell = cell.min(rows[0][j - 2] + 1);
            }
            rows[2][j] = cell;
            best = best.min(cell);
        }
        if best > max {
            return None;
        }
        rows.rotate_left(1);
    }
    let edits = rows[1][b.len()];
    (edits <= max).then_some(edits)
}

#[cfg(test)]
mod tests {
    use super::{distance, near_miss, normalize};

    fn edits(a: &str, b: &str, max: usize) -> Option<usize> {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        distance(&a, &b, max)
    }

    #[test]
    fn distance_counts_edits_and_swaps_within_the_band() {
        assert_eq!(edits("search", "search", 2), Some(0));
        assert_eq!(edits("serach", "search", 2), Some(1), "a swap is one edit");
        assert_eq!(edits("wether", "weather", 2), Some(1));
        assert_eq!(edits("sendmail", "sendemail", 2), Some(1));
        assert_eq!(edits("kitten", "sitting", 3), Some(3));
        assert_eq!(edits("kitten", "sitting", 2), None);
        assert_eq!(edits("a", "abcdef", 3), None, "lengths too far apart");
        assert_eq!(edits("", "ab", 2), Some(2));
        assert_eq!(edits("abc", "", 3), Some(3));
    }

    #[test]
    fn names_meet_without_case_and_separators() {
        assert_eq!(normalize("Read_File"), "readfile");
        assert_eq!(normalize("web-search.v2"), "websearchv2");
        assert_eq!(near_miss("readfile", &normalize("read_file")), 60);
        assert_eq!(near_miss("websearh", "websearch"), 40);
        assert_eq!(near_miss("lst", "list"), 40);
        assert_eq!(near_miss("git", "github"), 20, "a prefix");
        assert_eq!(near_miss("ab", "abc"), 40);
        assert_eq!(near_miss("xyz", "github"), 0);
        assert_eq!(
            near_miss("websearch", "webfetch"),
            0,
            "3 edits in 9 characters is too far"
        );
        assert_eq!(near_miss("calenderlistevents", "calendarlistevents"), 40);
        assert_eq!(near_miss("", "github"), 0);
    }

    #[test]
    fn a_long_needle_costs_a_band_not_a_square() {
        let needle: String = "a".repeat(4096);
        let candidate: String = "a".repeat(4094);
        assert_eq!(near_miss(&needle, &candidate), 30);
        assert_eq!(near_miss(&needle, "read_file"), 0);
    }
}
