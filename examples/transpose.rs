//! A tiled transpose of an f32 [H, W] tensor through shared memory: each
//! CTA of 32 x R threads moves one T x T tile, reading it row by row
//! (coalesced), storing it into a shared buffer padded by one column (so
//! the column reads after the barrier hit 32 different banks), and writing
//! it back transposed, row by row. Loads and stores are predicated, not
//! branched around, so a thread has all its loads in flight at once. Five
//! shapes of the same kernel (T x T tile, 32 x R threads, T * T / (32 * R)
//! elements a thread): 32x32/4, 32x32/8, 64x64/8, 64x64/16 and 64x64/32. Checked
//! against the host; on a GPU, timed against a device copy of the same
//! bytes.
//!
//! `cargo run --release --example transpose [N]` (default 16384 on a GPU,
//! a few small shapes on the CPU interpreter).

use tile_kernel::prelude::*;

/// `$name`: a `$t` x `$t` tile per CTA of 32 x `$r` threads; thread (x, y)
/// moves rows `y + $r k` of columns `x + 32 i` of the tile.
macro_rules! transpose_kernel {
    ($name:ident, tile = $t:tt, padded = $p:tt, rows = $r:tt) => {
        #[tile_kernel(grid = [ceil_div(W, $t), ceil_div(H, $t), 1], block = [32, $r, 1])]
        fn $name(a: Tensor<f32, H, W>, b: Tensor<f32, W, H>) {
            let tx = thread_id(0);
            let ty = thread_id(1);
            let tile = alloc_shared::<f32>([$t, $p]);
            let v = alloc_local::<f32>([$t / 32, $t / $r]);
            let u = alloc_local::<f32>([$t / 32, $t / $r]);
            for i in 0..$t / 32 {
                for k in 0..$t / $r {
                    let row = cta_id(1) * $t + ty + $r * k;
                    let col = cta_id(0) * $t + tx + 32 * i;
                    let inside = row < H && col < W;
                    let to = tile.slice(s![ty + $r * k, tx + 32 * i..tx + 32 * i + 1]);
                    let vk = v.slice(s![i, k..k + 1]);
                    apply(
                        ptx["ld.global.f32"],
                        vk,
                        a.slice(s![row, col..col + 1]),
                        pred = inside,
                    );
                    apply(ptx["st.shared.f32"], to, vk, pred = inside);
                }
            }
            apply(ptx["bar.sync"], 0, scope = "cta");
            for i in 0..$t / 32 {
                for k in 0..$t / $r {
                    let row = cta_id(0) * $t + ty + $r * k;
                    let col = cta_id(1) * $t + tx + 32 * i;
                    let inside = row < W && col < H;
                    let from = tile.slice(s![tx + 32 * i, ty + $r * k..ty + $r * k + 1]);
                    let uk = u.slice(s![i, k..k + 1]);
                    apply(ptx["ld.shared.f32"], uk, from, pred = inside);
                    apply(
                        ptx["st.global.f32"],
                        b.slice(s![row, col..col + 1]),
                        uk,
                        pred = inside,
                    );
                }
            }
        }
    };
}

transpose_kernel!(transpose_32x4, tile = 32, padded = 33, rows = 4);
transpose_kernel!(transpose_32x8, tile = 32, padded = 33, rows = 8);
transpose_kernel!(transpose_64x8, tile = 64, padded = 65, rows = 8);
transpose_kernel!(transpose_64x16, tile = 64, padded = 65, rows = 16);
transpose_kernel!(transpose_64x32, tile = 64, padded = 65, rows = 32);

type Kernel = fn(&Device, &DeviceTensor<f32>, &mut DeviceTensor<f32>) -> Result<(), Error>;

const KERNELS: [(&str, Kernel); 5] = [
    ("transpose_32x4", transpose_32x4),
    ("transpose_32x8", transpose_32x8),
    ("transpose_64x8", transpose_64x8),
    ("transpose_64x16", transpose_64x16),
    ("transpose_64x32", transpose_64x32),
];

fn check(dev: &Device, h: usize, w: usize) -> Result<(), Error> {
    let host: Vec<f32> = (0..h * w).map(|i| i as f32 * 0.5 - 7.0).collect();
    let a = dev.upload(&host, [h, w])?;
    let mut b = dev.upload(&vec![f32::NAN; h * w], [w, h])?;
    for (name, kernel) in KERNELS {
        kernel(dev, &a, &mut b)?;
        let got = b.download()?;
        for r in 0..w {
            for c in 0..h {
                assert_eq!(
                    got[r * h + c].to_bits(),
                    host[c * w + r].to_bits(),
                    "{name}: b[{r}, {c}]"
                );
            }
        }
        if !dev.is_cpu() {
            let runs: u32 = 20;
            let ms = dev.time(|| {
                for _ in 0..runs {
                    kernel(dev, &a, &mut b)?;
                }
                Ok(())
            })? / f64::from(runs);
            let mut copy = dev.zeros::<f32>([h, w])?;
            let copy_ms = dev.time(|| {
                for _ in 0..runs {
                    dev.stream()?
                        .memcpy_dtod(a.cuda_slice()?, copy.cuda_slice_mut()?)
                        .map_err(|source| Error::Driver {
                            during: "copying",
                            source,
                        })?;
                }
                Ok(())
            })? / f64::from(runs);
            let gbs = |ms: f64| (2 * h * w * 4) as f64 / ms / 1e6;
            println!(
                "{name} {h} x {w} f32: {ms:.4} ms, {:.1} GB/s; copy {copy_ms:.4} ms, {:.1} GB/s; {:.3}x the copy",
                gbs(ms),
                gbs(copy_ms),
                copy_ms / ms
            );
        }
    }
    println!("OK: the 5 transposes of {h} x {w} equal the host transpose");
    Ok(())
}

fn main() -> Result<(), Error> {
    // TRANSPOSE_PTX=transpose_64x16 (a kernel's name) prints its PTX.
    if let Ok(name) = std::env::var("TRANSPOSE_PTX") {
        let ptx = [
            transpose_32x4::PTX,
            transpose_32x8::PTX,
            transpose_64x8::PTX,
            transpose_64x16::PTX,
            transpose_64x32::PTX,
        ];
        print!(
            "{}",
            ptx[KERNELS.iter().position(|k| k.0 == name).unwrap_or(0)]
        );
        return Ok(());
    }
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = match args[..] {
        [n] => vec![(n, n)],
        _ if dev.is_cpu() => vec![(64, 64), (100, 37), (1, 65), (130, 200)],
        _ => vec![(16384, 16384), (1000, 3000)],
    };
    for (h, w) in sizes {
        check(&dev, h, w)?;
    }
    Ok(())
}
