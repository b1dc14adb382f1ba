//! The run's output items and the cumulative output limit.

use crate::result::Output;

#[derive(Debug)]
pub struct OutputLog {
    items: Vec<Output>,
    /// Items already returned in an earlier result of the same run.
    delivered: usize,
    /// UTF-8 JSON bytes of the whole output array so far (brackets included).
    bytes: usize,
    max_bytes: usize,
    exceeded: bool,
}

impl OutputLog {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            items: Vec::new(),
            delivered: 0,
            bytes: 2,
            max_bytes,
            exceeded: false,
        }
    }

    /// Bytes left before the limit.
    pub fn remaining(&self) -> usize {
        self.max_bytes.saturating_sub(self.bytes)
    }

    /// Appends an item; false (and the item dropped) when it would pass the limit.
    pub fn push(&mut self, item: Output) -> bool {
        if self.exceeded {
            return false;
        }
        // `json_len` counts the comma before the item; the first has none.
        let len = item.json_len() - usize::from(self.items.is_empty());
        if self.bytes + len > self.max_bytes {
            self.exceeded = true;
            return false;
        }
        self.bytes += len;
        self.items.push(item);
        true
    }

    /// Marks the limit as passed by an item too large to even encode.
    pub fn exceed(&mut self) {
        self.exceeded = true;
    }

    pub fn set_max_bytes(&mut self, max_bytes: usize) {
        self.max_bytes = max_bytes;
    }

    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// Items produced since the previous result of this run.
    pub fn take_new(&mut self) -> Vec<Output> {
        let fresh = self.items[self.delivered..].to_vec();
        self.delivered = self.items.len();
        fresh
    }
}

impl Default for OutputLog {
    /// An empty log that accepts nothing until its limit is set.
    fn default() -> Self {
        Self::new(0)
    }
}

#[cfg(test)]
mod tests {
    use super::OutputLog;
    use crate::result::Output;

    fn text(len: usize) -> Output {
        Output::Text {
            text: "x".repeat(len),
        }
    }

    #[test]
    fn an_output_array_of_exactly_the_limit_fits() {
        // [{"type":"text","text":"x…"}] is 27 bytes plus the text.
        let mut log = OutputLog::new(1024);
        assert!(log.push(text(1024 - 27)));
        assert_eq!(log.remaining(), 0);
        let mut log = OutputLog::new(1024);
        assert!(!log.push(text(1024 - 26)));
        // Two items: one pair of brackets, one comma between them.
        let mut log = OutputLog::new(2 + 2 * 25 + 1 + 10);
        assert!(log.push(text(5)));
        assert!(log.push(text(5)));
        assert_eq!(log.remaining(), 0);
        let items = serde_json::to_string(&log.take_new()).unwrap();
        assert_eq!(items.len(), 2 + 2 * 25 + 1 + 10);
    }
}
