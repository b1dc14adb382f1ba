//! The search index of a catalog: the guest entries' lower-cased text laid out
//! so that one term is found in all of them with one pass of a vectorised
//! substring search per field, instead of one `contains` per entry and field.
//! Built once per catalog, on its first search. The scores it gives are those
//! of `docs/catalog.md`, computed from the same lower-cased text.

use std::cmp::Reverse;
use std::collections::HashMap;

use memchr::memmem::Finder;

use super::{cmp_code_units, CatalogEntry};

/// The points a term earns in each field (`docs/catalog.md`).
const EQUAL: u32 = 20;
const FIELDS: [(Field, u32); 4] = [
    (Field::Name, 8),
    (Field::Id, 6),
    (Field::Label, 4),
    (Field::Description, 2),
];

#[derive(Clone, Copy)]
enum Field {
    Name,
    Id,
    Label,
    Description,
}

/// One field of every guest entry, end to end. Values are separated by a NUL,
/// which no search term contains (terms are `[a-z0-9_./:-]+`), so no match
/// spans two entries.
#[derive(Debug, Default)]
struct Column {
    text: String,
    /// Where each guest entry's value starts in `text`, in guest order.
    starts: Vec<u32>,
}

impl Column {
    fn push(&mut self, value: &str) {
        self.starts.push(self.text.len() as u32);
        self.text.push_str(value);
        self.text.push('\0');
    }

    /// Adds `points` to every entry whose value contains `term`, once each.
    fn score(&self, finder: &Finder<'_>, points: u32, scores: &mut [u32]) {
        let text = self.text.as_bytes();
        let mut from = 0;
        while let Some(found) = finder.find(&text[from..]) {
            let at = (from + found) as u32;
            // The entry whose value holds the match: the last start at or
            // before it.
            let entry = self.starts.partition_point(|&start| start <= at) - 1;
            scores[entry] += points;
            // The rest of this entry's value cannot score again.
            match self.starts.get(entry + 1) {
                Some(&next) => from = next as usize,
                None => break,
            }
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct SearchIndex {
    name: Column,
    id: Column,
    label: Column,
    description: Column,
    /// Guest entries whose lower-cased name or id equals a term.
    equal: HashMap<String, Vec<u32>>,
    /// Each guest entry's place in id order (JavaScript string order).
    rank: Vec<u32>,
    /// Guest entries in id order.
    by_rank: Vec<u32>,
}

impl SearchIndex {
    /// The index of `entries` (the guest entries, in catalog order).
    pub(super) fn build<'a>(entries: impl Iterator<Item = &'a CatalogEntry>) -> Self {
        let mut index = SearchIndex::default();
        let mut ids: Vec<&str> = Vec::new();
        for (k, entry) in entries.enumerate() {
            let lower = entry.lower();
            index.name.push(&lower.name);
            index.id.push(&lower.id);
            index.label.push(lower.label.as_deref().unwrap_or(""));
            index.description.push(&lower.description);
            for key in [&lower.name, &lower.id] {
                let slot = index.equal.entry(key.clone()).or_default();
                if slot.last() != Some(&(k as u32)) {
                    slot.push(k as u32);
                }
            }
            ids.push(&entry.id);
        }
        let mut by_rank: Vec<u32> = (0..ids.len() as u32).collect();
        by_rank.sort_by(|&a, &b| cmp_code_units(ids[a as usize], ids[b as usize]));
        let mut rank = vec![0; ids.len()];
        for (place, &k) in by_rank.iter().enumerate() {
            rank[k as usize] = place as u32;
        }
        index.rank = rank;
        index.by_rank = by_rank;
        index
    }

    fn column(&self, field: Field) -> &Column {
        match field {
            Field::Name => &self.name,
            Field::Id => &self.id,
            Field::Label => &self.label,
            Field::Description => &self.description,
        }
    }

    /// The positions (in guest order) of the best `limit` entries for
    /// `terms`: best score first, ties in id order; entries that score 0 are
    /// left out. With no terms every entry scores 1.
    pub(super) fn search(&self, terms: &[&str], limit: usize) -> Vec<usize> {
        if terms.is_empty() {
            return self
                .by_rank
                .iter()
                .take(limit)
                .map(|&k| k as usize)
                .collect();
        }
        let mut scores = vec![0u32; self.rank.len()];
        for term in terms {
            if let Some(equal) = self.equal.get(*term) {
                for &k in equal {
                    scores[k as usize] += EQUAL;
                }
            }
            let finder = Finder::new(term.as_bytes());
            for (field, points) in FIELDS {
                self.column(field).score(&finder, points, &mut scores);
            }
        }
        let mut hits: Vec<(Reverse<u32>, u32)> = scores
            .iter()
            .enumerate()
            .filter(|&(_, &score)| score > 0)
            .map(|(k, &score)| (Reverse(score), self.rank[k]))
            .collect();
        if hits.len() > limit {
            if limit == 0 {
                return Vec::new();
            }
            hits.select_nth_unstable(limit - 1);
            hits.truncate(limit);
        }
        hits.sort_unstable();
        hits.into_iter()
            .map(|(_, rank)| self.by_rank[rank as usize] as usize)
            .collect()
    }
}
