//! Bounds of `limits.rs` that have no guest-visible effect, at their value
//! and one past it: how a large tool input is cut for the Node thread
//! ([`INPUT_PIECE_BYTES`], [`INPUT_PIECE_MEMBERS`]).

use code_mode_core::limits::{INPUT_PIECE_BYTES, INPUT_PIECE_MEMBERS};
use code_mode_core::runs::pieces::{split, PieceSize};

const SIZE: PieceSize = PieceSize {
    bytes: INPUT_PIECE_BYTES,
    members: INPUT_PIECE_MEMBERS,
};

/// An array of `len` bytes of compact JSON: `["xx…x"]`.
fn array_of_bytes(len: usize) -> String {
    format!("[\"{}\"]", "x".repeat(len - 4))
}

/// An object of `members` small members: `{"k0":0,"k1":1,…}`.
fn object_of(members: usize) -> String {
    let body: Vec<String> = (0..members).map(|i| format!("\"k{i}\":{i}")).collect();
    format!("{{{}}}", body.join(","))
}

#[test]
fn an_input_of_input_piece_bytes_travels_whole_and_one_byte_more_is_cut() {
    assert_eq!(INPUT_PIECE_BYTES, 16 * 1024);
    assert_eq!(split(&array_of_bytes(INPUT_PIECE_BYTES), SIZE), None);
    let cut = split(&array_of_bytes(INPUT_PIECE_BYTES + 1), SIZE).expect("cut");
    // Its one element is longer than a piece and not a container: it
    // travels whole between the opening and the closing of the array.
    assert_eq!(
        cut.len(),
        3,
        "{:?}",
        &cut.iter().map(|p| &p[..1]).collect::<Vec<_>>()
    );
    assert_eq!((cut[0].as_str(), cut[2].as_str()), ("a", "c"));
}

#[test]
fn a_piece_carries_at_most_input_piece_members_members() {
    assert_eq!(INPUT_PIECE_MEMBERS, 256);
    // Far more than a piece of bytes in all, far fewer than a piece in each
    // run of members: the count decides.
    for (members, runs) in [(8 * 256, 8), (8 * 256 + 1, 9)] {
        let json = object_of(members);
        assert!(json.len() > INPUT_PIECE_BYTES);
        assert!(json.len() / members * INPUT_PIECE_MEMBERS < INPUT_PIECE_BYTES);
        let pieces = split(&json, SIZE).expect("cut");
        assert_eq!(pieces.len(), 2 + runs, "{members} members");
        let counts: Vec<usize> = pieces[1..pieces.len() - 1]
            .iter()
            .map(|piece| {
                let members: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&piece[1..]).unwrap();
                members.len()
            })
            .collect();
        assert!(
            counts.iter().all(|&n| n <= INPUT_PIECE_MEMBERS),
            "{counts:?}"
        );
        assert_eq!(counts.iter().sum::<usize>(), members);
        assert_eq!(counts[0], INPUT_PIECE_MEMBERS);
    }
}
