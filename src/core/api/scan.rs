//! A strict JSON cursor for the hand-written pod decoder ([`super::pod_wire`]) and the list-page
//! scanner built on it.
//!
//! The cursor accepts a subset of what `serde_json` accepts, never more: strings without
//! escapes or control characters are read in place, values nobody reads are skipped with
//! `serde_json`'s own grammar (`de.rs` `ignore_value`: one leading zero, digits after `.` and
//! `e`, escapes `\" \\ \/ \b \f \n \r \t \uXXXX`, no control characters, no trailing commas),
//! and nesting deeper than [`MAX_DEPTH`] is refused. Whatever it refuses is a [`Miss`]: the
//! caller hands the text to the general decoder, which decides (and words the error) as before.

/// The text is not in the shape the fast path reads; decode it the general way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Miss;

/// Deepest nesting the cursor follows (below `serde_json`'s recursion limit of 128, so that a
/// value decoded by parts never gets deeper than the general decoder would have let it).
pub const MAX_DEPTH: u32 = 100;

/// The index of `key` among `names`. Lengths and first bytes are compared before the rest,
/// eight bytes at a time: matching every key with `match` called the C library's byte-wise
/// `memcmp` for each candidate, the decoder's largest cost.
#[inline]
pub fn field_index(key: &str, names: &[&str]) -> Option<usize> {
    let k = key.as_bytes();
    let first = *k.first()?;
    names.iter().position(|n| n.len() == k.len() && n.as_bytes()[0] == first && same(n.as_bytes(), k))
}

/// Equal bytes of equal-length slices.
fn same(a: &[u8], b: &[u8]) -> bool {
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut a8).zip(&mut b8) {
        let word = |w: &[u8]| u64::from_le_bytes(<[u8; 8]>::try_from(w).unwrap_or_default());
        if word(x) != word(y) {
            return false;
        }
    }
    a8.remainder().iter().zip(b8.remainder()).all(|(x, y)| x == y)
}

/// A position to come back to.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    pub pos: usize,
    depth: u32,
}

/// A position in JSON text.
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    depth: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, pos: 0, depth: 0 }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The offset of the next value (after whitespace).
    pub fn start(&mut self) -> usize {
        self.ws();
        self.pos
    }

    /// Where the next value starts, to come back to ([`Cursor::rewind`]).
    pub fn mark(&mut self) -> Mark {
        Mark { pos: self.start(), depth: self.depth }
    }

    /// Go back to `mark` (nesting included: a [`Miss`] may leave objects open).
    pub fn rewind(&mut self, mark: Mark) {
        self.pos = mark.pos;
        self.depth = mark.depth;
    }

    /// The text from `from` to here (the cursor only ever stops on ASCII, so this is a boundary).
    pub fn since(&self, from: usize) -> &'a str {
        self.text.get(from..self.pos).unwrap_or_default()
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes().get(self.pos).copied()
    }

    #[inline]
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    #[inline]
    fn expect(&mut self, b: u8) -> Result<(), Miss> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(Miss)
        }
    }

    /// Only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.pos == self.text.len()
    }

    /// Consume a `null` if one comes next.
    #[inline]
    pub fn null(&mut self) -> Result<bool, Miss> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.literal(b"null")?;
        Ok(true)
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Miss> {
        if self.bytes().get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Miss)
        }
    }

    /// A string without escapes, borrowed from the text.
    pub fn plain_str(&mut self) -> Result<&'a str, Miss> {
        self.expect(b'"')?;
        let start = self.pos;
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b'"' => {
                    let s = self.text.get(start..self.pos).ok_or(Miss)?;
                    self.pos += 1;
                    return Ok(s);
                }
                b'\\' | 0..=0x1f => return Err(Miss),
                _ => self.pos += 1,
            }
        }
        Err(Miss)
    }

    /// `true` or `false`.
    pub fn boolean(&mut self) -> Result<bool, Miss> {
        match self.peek() {
            Some(b't') => self.literal(b"true").map(|_| true),
            Some(b'f') => self.literal(b"false").map(|_| false),
            _ => Err(Miss),
        }
    }

    /// An integer written plainly (no fraction, exponent or `-0`, which `serde_json` reads as a
    /// float) that fits an `i32`.
    pub fn int32(&mut self) -> Result<i32, Miss> {
        i32::try_from(self.int64()?).map_err(|_| Miss)
    }

    /// [`Cursor::int32`] for an `i64`.
    pub fn int64(&mut self) -> Result<i64, Miss> {
        let start = self.start();
        self.number()?;
        let text = self.since(start);
        if text.starts_with("-0") || text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            return Err(Miss);
        }
        text.parse::<i64>().map_err(|_| Miss)
    }

    /// An object: `field` is called with each key (the cursor before its value) and must
    /// consume the value.
    pub fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Result<(), Miss>) -> Result<(), Miss> {
        self.object_keyed(true, &mut field)
    }

    /// [`Cursor::object`]; with `plain_keys` false, keys with escapes are accepted (and passed
    /// on as `""`: only for skipping).
    /// One copy of the loop for every caller (`dyn`: the decoder stays small).
    fn object_keyed(
        &mut self,
        plain_keys: bool,
        field: &mut dyn FnMut(&mut Self, &'a str) -> Result<(), Miss>,
    ) -> Result<(), Miss> {
        self.expect(b'{')?;
        self.enter()?;
        if !self.eat(b'}') {
            loop {
                let key = if plain_keys {
                    self.plain_str()?
                } else {
                    self.expect(b'"')?;
                    self.skip_str_rest()?;
                    ""
                };
                self.expect(b':')?;
                field(self, key)?;
                if self.eat(b',') {
                    continue;
                }
                self.expect(b'}')?;
                break;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// An array: `element` is called before each element and must consume it.
    pub fn array(&mut self, mut element: impl FnMut(&mut Self) -> Result<(), Miss>) -> Result<(), Miss> {
        self.array_dyn(&mut element)
    }

    /// [`Cursor::array`], one copy of the loop for every caller.
    fn array_dyn(&mut self, element: &mut dyn FnMut(&mut Self) -> Result<(), Miss>) -> Result<(), Miss> {
        self.expect(b'[')?;
        self.enter()?;
        if !self.eat(b']') {
            loop {
                element(self)?;
                if self.eat(b',') {
                    continue;
                }
                self.expect(b']')?;
                break;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    fn enter(&mut self) -> Result<(), Miss> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Miss);
        }
        Ok(())
    }

    /// Skip one value, checking it as `serde_json` checks a value it ignores.
    pub fn skip_value(&mut self) -> Result<(), Miss> {
        match self.peek().ok_or(Miss)? {
            b'{' => self.object_keyed(false, &mut |c, _| c.skip_value()),
            b'[' => self.array_dyn(&mut Cursor::skip_value),
            b'"' => {
                self.pos += 1;
                self.skip_str_rest()
            }
            b'n' => self.literal(b"null"),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Miss),
        }
    }

    /// The raw text of the next value (checked as [`Cursor::skip_value`] checks it).
    pub fn raw_value(&mut self) -> Result<&'a str, Miss> {
        let start = self.start();
        self.skip_value()?;
        Ok(self.since(start))
    }

    /// The rest of a string after its opening quote, escapes checked.
    fn skip_str_rest(&mut self) -> Result<(), Miss> {
        let bytes = self.bytes();
        loop {
            let b = *bytes.get(self.pos).ok_or(Miss)?;
            self.pos += 1;
            match b {
                b'"' => return Ok(()),
                b'\\' => {
                    let e = *bytes.get(self.pos).ok_or(Miss)?;
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let hex = bytes.get(self.pos..self.pos + 4).ok_or(Miss)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err(Miss);
                            }
                            self.pos += 4;
                        }
                        _ => return Err(Miss),
                    }
                }
                0..=0x1f => return Err(Miss),
                _ => {}
            }
        }
    }

    /// A number in JSON's grammar (`-`, one `0` or digits without a leading zero, optional
    /// fraction and exponent, each with at least one digit).
    fn number(&mut self) -> Result<(), Miss> {
        let bytes = self.bytes();
        let digit = |c: &Self| matches!(bytes.get(c.pos), Some(b'0'..=b'9'));
        if bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match bytes.get(self.pos) {
            Some(b'0') => {
                self.pos += 1;
                if digit(self) {
                    return Err(Miss);
                }
            }
            Some(b'1'..=b'9') => {
                while digit(self) {
                    self.pos += 1;
                }
            }
            _ => return Err(Miss),
        }
        if bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digit(self) {
                return Err(Miss);
            }
            while digit(self) {
                self.pos += 1;
            }
        }
        if let Some(b'e' | b'E') = bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = bytes.get(self.pos) {
                self.pos += 1;
            }
            if !digit(self) {
                return Err(Miss);
            }
            while digit(self) {
                self.pos += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cursor skips exactly what `serde_json` ignores, and refuses what it refuses.
    #[test]
    fn skipping_follows_serde_json() {
        let cases = [
            "null",
            "true",
            "false",
            "0",
            "-1",
            "1.5",
            "1e3",
            "1E+3",
            "-0.0e-1",
            "\"\"",
            "\"a\\u00e9\\n\\\"\"",
            "[]",
            "{}",
            "[1,[2,{\"a\":null}]]",
            "{\"a\":{\"b\":[]},\"c\":\"d\"}",
            " [ 1 , 2 ] ",
            "01",
            "1.",
            ".5",
            "1e",
            "-",
            "+1",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\"}",
            "{\"\\u0061\":1}",
            "{a:1}",
            "[1 2]",
            "nul",
            "tru",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"a\u{1}b\"",
            "\"open",
            "[",
            "{\"a\":",
            "\"\\ud800\"",
            "--1",
            "-01",
            "1.5.2",
            "[]]",
            "é",
        ];
        for case in cases {
            let serde_ok = serde_json::from_str::<serde::de::IgnoredAny>(case).is_ok();
            let mut c = Cursor::new(case);
            let ours = c.skip_value().is_ok() && c.at_end();
            assert_eq!(ours, serde_ok, "{case}");
        }
    }

    #[test]
    fn field_names_match_exactly() {
        let names = ["name", "namespace", "nodeName", "resourceVersionsAreLong", "a"];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(field_index(n, &names), Some(i));
        }
        for miss in ["", "nam", "names", "Name", "resourceVersionsAreLonG", "b", "namespacE"] {
            assert_eq!(field_index(miss, &names), None, "{miss}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH as usize + 1), "]".repeat(MAX_DEPTH as usize + 1));
        assert_eq!(Cursor::new(&deep).skip_value(), Err(Miss));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH as usize), "]".repeat(MAX_DEPTH as usize));
        assert_eq!(Cursor::new(&ok).skip_value(), Ok(()));
    }

    #[test]
    fn plain_values() {
        let mut c = Cursor::new(r#" "abc" , -12 true"#);
        assert_eq!(c.plain_str(), Ok("abc"));
        assert!(c.eat(b','));
        assert_eq!(c.int32(), Ok(-12));
        assert_eq!(c.boolean(), Ok(true));
        assert!(c.at_end());
        for miss in [r#""a\nb""#, "1.0", "-0", "1e2", "2147483648", "\"a\u{1}\""] {
            let mut c = Cursor::new(miss);
            assert!(c.plain_str().is_err() || !c.at_end(), "{miss}");
            let mut c = Cursor::new(miss);
            assert!(c.int32().is_err(), "{miss}");
        }
    }
}
