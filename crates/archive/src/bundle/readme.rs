//! `README.txt`: how to check the bundle with standard tools alone.

use super::index::BundleFacts;

/// The README for the bundle `index` describes: what it holds, then the commands.
pub fn readme(index: &BundleFacts<'_>) -> String {
    let mut text = header(index);
    text.push_str(LAYOUT);
    text.push_str(COMMANDS);
    text
}

fn header(index: &BundleFacts<'_>) -> String {
    let last = match index.last_segment {
        Some(s) => format!(
            "The last segment exported is {}-{}, whose signed head is\n  {}\n",
            s.first_seq, s.last_seq, s.head
        ),
        None => "No ledger segment holds these messages yet.\n".to_owned(),
    };
    let head = match index.ledger_head {
        Some(s) => format!(
            "When it was made, the hub's ledger was sealed up to seq {} (head {}).\n",
            s.last_seq, s.head
        ),
        None => String::new(),
    };
    format!(
        "edihub audit bundle\n===================\n\n\
         Exported {exported} for messages received from {from} to {to} (excluded){partner}.\n\
         It holds {messages} message(s) and {segments} ledger segment(s).\n{last}{head}\n\
         Write these two lines down apart from the bundle (or compare them with what the\n\
         hub's operator states): a bundle whose segments end earlier was truncated.\n\n",
        exported = index.exported_at.to_rfc3339(),
        from = index.from.to_rfc3339(),
        to = index.to.to_rfc3339(),
        partner = index
            .partner
            .map(|p| format!(", partner {p} only"))
            .unwrap_or_default(),
        messages = index.messages,
        segments = index.segments,
    )
}

const LAYOUT: &str = "\
What is here
------------

Paths are the keys of the hub's Object Lock bucket.

  originals/Y/M/D/<id>.edi           the interchange as the partner sent it
  evidence/Y/M/D/<id>/               request-body.bin, request-headers.json,
                                     signed-entity.eml (signed messages), mdn.eml,
                                     evidence.json (ids, times, algorithms, the partner
                                     certificate, the SHA-256 and size of each object,
                                     the message's ledger position)
  ledger/segments/<first>-<last>/    entries.jsonl, segment.json, segment.p7s,
                                     segment.tsr (when a timestamp authority is used)
  certificates/sealing.pem           the hub's sealing certificate, as exported: obtain
                                     it from the hub's operator as well, and use that one
  certificates/hub/                  the hub's AS2 certificates (signed MDNs)
  certificates/partners/             each partner certificate that signed
  index.json, index.csv              every message and object, and the ledger run
  index.json.p7s                     the hub's sealing signature over index.json

";

const COMMANDS: &str = "\
Checking it with standard tools
-------------------------------

Run these in the directory the bundle was unpacked into (tar -xf bundle.tar), with
seal.pem the sealing certificate obtained from the hub's operator (or, failing that,
certificates/sealing.pem) and s=ledger/segments/<first>-<last> for each segment.

1. Every object is the one its evidence names: compare with evidence.json's
   \"objects\", and with the ledger entry's \"objects\" (evidence.json included).

     sha256sum originals/Y/M/D/<id>.edi evidence/Y/M/D/<id>/*

2. Each segment was sealed by the hub (prints \"Verification successful\"), and when:

     openssl cms -verify -binary -inform DER -in $s/segment.p7s -content $s/segment.json \\
       -nointern -certfile seal.pem -noverify -out /dev/null
     openssl ts -verify -data $s/segment.json -in $s/segment.tsr -CAfile tsa.pem

   index.json, which names the last segment exported and its head, was signed with
   the same key: a bundle cut short and its index rewritten to match fails here.

     openssl cms -verify -binary -inform DER -in index.json.p7s -content index.json \\
       -nointern -certfile seal.pem -noverify -out /dev/null

3. entries.jsonl is what segment.json signed: its SHA-256 is \"entries_sha256\", and
   hash(n) = SHA-256(hash(n-1) || line n), from the segment's \"prev_head\" (32 zero
   bytes before seq 1), ends at its \"head\":

     sha256sum $s/entries.jsonl
     h=$(grep '\"prev_head\"' $s/segment.json | cut -d'\"' -f4)
     while IFS= read -r line; do
       h=$({ printf %s \"$h\" | xxd -r -p; printf %s \"$line\"; } | sha256sum | cut -c1-64)
     done < $s/entries.jsonl; echo \"$h\"

   Each segment's \"prev_head\" is the previous segment's \"head\", and positions run
   on from one segment to the next without a gap.

4. The partner signed the message: cut signed-entity.eml's two MIME parts out byte for
   byte (content.bin: the first part, headers included; signature.der: the second,
   base64-decoded), then

     openssl cms -verify -binary -inform DER -in signature.der -content content.bin \\
       -nointern -certfile partner.pem -noverify -out /dev/null

   with partner.pem from certificates/partners/ (evidence.json's certificate_sha256
   names it). mdn.eml's Received-Content-MIC is the base64 digest of content.bin.

`edihub audit verify <this file> --seal-certificate seal.pem` does all of the above
offline, without the hub's database or bucket.
";
