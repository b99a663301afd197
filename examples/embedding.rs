//! An embedding lookup (a gather): `out[t, :] = table[ids[t], :]` for token
//! ids below the vocabulary, rows of other ids set to zero, with the row
//! index read from a register (`id[0]`, a data-dependent address: in
//! bounds by the kernel's `if`, not by a clamp). Checked against the host;
//! on a GPU, timed on the device's stream.
//!
//! `cargo run --release --example embedding [TOKENS]` (default 16384 on a
//! GPU, 64 on the CPU interpreter; 1024 columns, a vocabulary of 32000).

use tile_kernel::prelude::*;

const COLUMNS: usize = 1024;
const VOCAB: usize = 32000;

/// One CTA per (token, 1024 columns); each thread moves 4 floats.
#[tile_kernel(grid = [ceil_div(D, 1024), T, 1], block = 256)]
fn embedding(ids: Tensor<u32, T>, table: Tensor<f32, V, D>, out: Tensor<f32, T, D>) {
    let token = cta_id(1);
    let col = cta_id(0) * 1024 + thread_id(0) * 4;
    let id = alloc_local::<u32>([1]);
    let r = alloc_local::<f32>([1, 4]);
    apply(ptx["ld.global.nc.u32"], id, ids.slice(s![token..token + 1]));
    let row = id[0];
    if row < V {
        apply(
            ptx["ld.global.nc.v4.f32"],
            r,
            table.slice(s![row..row + 1, col..col + 4]),
        );
    } else {
        apply(ptx["mov.b32"], r.view::<u32>().reshape([4, 1]), 0);
    }
    apply(
        ptx["st.global.v4.f32"],
        out.slice(s![token..token + 1, col..col + 4]),
        r,
    );
}

fn main() -> Result<(), Error> {
    if std::env::var_os("EMBEDDING_PTX").is_some() {
        print!("{}", embedding::PTX);
        return Ok(());
    }
    let dev = Device::new(0)?;
    let tokens: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(if dev.is_cpu() { 64 } else { 16384 });
    println!("device: {}", dev.name()?);
    let table: Vec<f32> = (0..VOCAB * COLUMNS)
        .map(|e| ((e * 2_654_435_761) % 65_521) as f32 / 4096.0 - 8.0)
        .collect();
    // Every 101st id is past the vocabulary (padding, say): its row is zero.
    let ids: Vec<u32> = (0..tokens)
        .map(|t| {
            if t % 101 == 7 {
                (VOCAB + t) as u32
            } else {
                ((t * 7919) % VOCAB) as u32
            }
        })
        .collect();
    let dids = dev.upload(&ids, [tokens])?;
    let dtable = dev.upload(&table, [VOCAB, COLUMNS])?;
    let mut out = dev.upload(&vec![f32::NAN; tokens * COLUMNS], [tokens, COLUMNS])?;
    embedding(&dev, &dids, &dtable, &mut out)?;
    let got = out.download()?;
    for (t, id) in ids.iter().enumerate() {
        for c in 0..COLUMNS {
            let want = if (*id as usize) < VOCAB {
                table[*id as usize * COLUMNS + c]
            } else {
                0.0
            };
            assert_eq!(
                got[t * COLUMNS + c].to_bits(),
                want.to_bits(),
                "token {t}, column {c}"
            );
        }
    }
    if !dev.is_cpu() {
        let runs: u32 = 20;
        embedding(&dev, &dids, &dtable, &mut out)?;
        let ms = dev.time(|| {
            for _ in 0..runs {
                embedding(&dev, &dids, &dtable, &mut out)?;
            }
            Ok(())
        })? / f64::from(runs);
        // Bytes moved: each output row read from the table and written.
        let bytes = 2.0 * (tokens * COLUMNS * 4) as f64;
        println!(
            "embedding of {tokens} tokens x {COLUMNS} f32: {ms:.4} ms per launch, {:.1} GB/s (read + write)",
            bytes / ms / 1e6
        );
    }
    println!("OK: {tokens} embedding rows match the host (ids past the vocabulary give zero rows)");
    Ok(())
}
