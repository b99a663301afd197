//! Strided views of tiles and tensors.
//!
//! A [`Layout`] maps a multi-index to a byte offset inside the underlying
//! storage (a local tile's registers or a global tensor's memory). Offsets and
//! strides are in *bytes* so that dtype views (`u32` -> `u16` halves) are exact:
//! element 0 of a `u32` -> `u16` view is the low half (little-endian).
//! View operations never move data; they only build a new layout.

use crate::ast::SliceItem;
use crate::diag::SpanId;
use crate::dtype::DType;

/// The shape, strides and offset of a view, in bytes of its storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// Byte distance between neighbours along each axis.
    pub strides: Vec<usize>,
    /// Byte offset of element `[0, 0, ..]`.
    pub offset: usize,
}

/// A view operation that cannot be applied; `span` names the offending token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError {
    pub span: SpanId,
    pub message: String,
    pub help: Option<String>,
}

impl LayoutError {
    fn new(span: SpanId, message: impl Into<String>) -> Self {
        LayoutError {
            span,
            message: message.into(),
            help: None,
        }
    }
}

/// Formats a shape like the user writes it: `[4, 2]`.
pub fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(", "))
}

impl Layout {
    /// A dense row-major layout over fresh storage.
    pub fn row_major(dtype: DType, shape: &[usize]) -> Layout {
        let mut strides = vec![0; shape.len()];
        let mut stride = dtype.size_bytes();
        for axis in (0..shape.len()).rev() {
            strides[axis] = stride;
            stride = stride.saturating_mul(shape[axis]);
        }
        Layout {
            dtype,
            shape: shape.to_vec(),
            strides,
            offset: 0,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape
            .iter()
            .fold(1usize, |acc, d| acc.saturating_mul(*d))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte offset of one element.
    pub fn byte_offset(&self, index: &[usize]) -> usize {
        index
            .iter()
            .zip(&self.strides)
            .fold(self.offset, |acc, (i, s)| {
                acc.saturating_add(i.saturating_mul(*s))
            })
    }

    /// Whether the view walks its storage densely in row-major order.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = self.dtype.size_bytes();
        for axis in (0..self.shape.len()).rev() {
            if self.shape[axis] != 1 && self.strides[axis] != expected {
                return false;
            }
            expected = expected.saturating_mul(self.shape[axis]);
        }
        true
    }

    /// `s![..]`: one item per leading axis; missing trailing axes are kept whole.
    pub fn slice(&self, items: &[SliceItem], span: SpanId) -> Result<Layout, LayoutError> {
        if items.len() > self.shape.len() {
            return Err(LayoutError::new(
                span,
                format!(
                    "this slice has {} items but the view has only {} axes (shape {})",
                    items.len(),
                    self.shape.len(),
                    shape_text(&self.shape)
                ),
            ));
        }
        let mut out = Layout {
            dtype: self.dtype,
            shape: Vec::new(),
            strides: Vec::new(),
            offset: self.offset,
        };
        for (axis, item) in items.iter().enumerate() {
            let len = self.shape[axis];
            let stride = self.strides[axis];
            let resolve = |value: i64,
                           item_span: SpanId,
                           allow_len: bool|
             -> Result<usize, LayoutError> {
                // i128: neither `len + value` nor `len - 1` can overflow.
                let (len, value) = (len as i128, i128::from(value));
                let resolved = if value < 0 { len + value } else { value };
                let limit = if allow_len { len } else { len - 1 };
                if resolved < 0 || resolved > limit {
                    return Err(LayoutError::new(
                        item_span,
                        format!("index {value} is out of bounds for axis {axis} of extent {len}"),
                    ));
                }
                Ok(resolved as usize)
            };
            match *item {
                SliceItem::Index { index, span } => {
                    let i = resolve(index, span, false)?;
                    out.offset = out.offset.saturating_add(i.saturating_mul(stride));
                }
                SliceItem::Range {
                    start,
                    end,
                    step,
                    span,
                } => {
                    if step <= 0 {
                        return Err(LayoutError::new(
                            span,
                            format!(
                                "slice step must be positive, got {step} (reversed views are not supported)"
                            ),
                        ));
                    }
                    let begin = resolve(start.unwrap_or(0), span, true)?;
                    let finish = match end {
                        Some(end) => resolve(end, span, true)?,
                        None => len,
                    };
                    if begin > finish {
                        return Err(LayoutError::new(
                            span,
                            format!("slice start {begin} is past its end {finish} on axis {axis}"),
                        ));
                    }
                    let step = step as usize;
                    out.offset = out.offset.saturating_add(begin.saturating_mul(stride));
                    out.shape.push((finish - begin).div_ceil(step));
                    out.strides.push(stride.saturating_mul(step));
                }
            }
        }
        out.shape.extend_from_slice(&self.shape[items.len()..]);
        out.strides.extend_from_slice(&self.strides[items.len()..]);
        Ok(out)
    }

    /// `.view::<U>()`: reinterpret the bits of the final axis as `to`.
    pub fn view(&self, to: DType, span: SpanId) -> Result<Layout, LayoutError> {
        let from = self.dtype;
        if !to.is_tile_element() {
            return Err(LayoutError::new(
                span,
                format!("cannot view tile elements as `{to}`"),
            ));
        }
        let Some(&last) = self.shape.last() else {
            return Err(LayoutError::new(
                span,
                "cannot change the dtype of a view with no axes",
            ));
        };
        let last_stride = *self.strides.last().unwrap_or(&0);
        if last > 1 && last_stride != from.size_bytes() {
            return Err(LayoutError::new(
                span,
                format!(
                    "`.view::<{to}>()` needs a contiguous final axis, but this view steps {} bytes between `{from}` elements",
                    last_stride
                ),
            ));
        }
        let bytes = last.saturating_mul(from.size_bytes());
        if bytes % to.size_bytes() != 0 {
            let mut err = LayoutError::new(
                span,
                format!(
                    "cannot view {last} x {from} ({bytes} bytes) as `{to}`: {bytes} is not a multiple of {}",
                    to.size_bytes()
                ),
            );
            err.help = Some(
                "a dtype view reinterprets the final axis; its byte size must divide evenly"
                    .to_string(),
            );
            return Err(err);
        }
        let mut out = self.clone();
        out.dtype = to;
        if let Some(extent) = out.shape.last_mut() {
            *extent = bytes / to.size_bytes();
        }
        if let Some(stride) = out.strides.last_mut() {
            *stride = to.size_bytes();
        }
        Ok(out)
    }

    /// `.reshape([..])` of a contiguous view; one extent may be `-1`.
    pub fn reshape(&self, dims: &[i64], span: SpanId) -> Result<Layout, LayoutError> {
        if !self.is_contiguous() {
            return Err(LayoutError::new(
                span,
                format!(
                    "cannot reshape a non-contiguous view of shape {}",
                    shape_text(&self.shape)
                ),
            ));
        }
        let total = self.len();
        let inferred: Vec<usize> = dims
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == -1)
            .map(|(i, _)| i)
            .collect();
        if inferred.len() > 1 || dims.iter().any(|d| *d < -1) {
            return Err(LayoutError::new(
                span,
                "reshape extents must be non-negative, with at most one -1",
            ));
        }
        let Some(known) = dims
            .iter()
            .filter(|d| **d >= 0)
            .try_fold(1usize, |acc, d| acc.checked_mul(*d as usize))
        else {
            return Err(LayoutError::new(span, "reshape extents overflow"));
        };
        let mut shape: Vec<usize> = dims.iter().map(|d| (*d).max(0) as usize).collect();
        if let Some(&axis) = inferred.first() {
            if known == 0 || !total.is_multiple_of(known) {
                return Err(LayoutError::new(
                    span,
                    format!(
                        "cannot infer the -1 extent: {total} elements do not divide by {known}"
                    ),
                ));
            }
            shape[axis] = total / known;
        }
        let new_total = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d));
        if new_total != Some(total) {
            return Err(LayoutError::new(
                span,
                format!(
                    "cannot reshape {} ({total} elements) into {} ({} elements)",
                    shape_text(&self.shape),
                    shape_text(&shape),
                    new_total.map_or("too many".to_string(), |n| n.to_string())
                ),
            ));
        }
        let mut out = Layout::row_major(self.dtype, &shape);
        out.offset = self.offset;
        Ok(out)
    }

    /// `.unsqueeze(axis)`: insert an extent-1 axis; negative axes count from
    /// the end, so `-1` appends a new final (register) axis.
    pub fn unsqueeze(&self, axis: i64, span: SpanId) -> Result<Layout, LayoutError> {
        let rank = self.shape.len() as i64;
        let position = if axis < 0 { rank + 1 + axis } else { axis };
        if position < 0 || position > rank {
            return Err(LayoutError::new(
                span,
                format!(
                    "unsqueeze axis {axis} is out of range for a view with {rank} axes (valid: {}..={rank})",
                    -(rank + 1)
                ),
            ));
        }
        let mut out = self.clone();
        out.shape.insert(position as usize, 1);
        out.strides.insert(position as usize, 0);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: SpanId = SpanId(0);

    fn range(start: Option<i64>, end: Option<i64>) -> SliceItem {
        SliceItem::Range {
            start,
            end,
            step: 1,
            span: S,
        }
    }

    #[test]
    fn column_slice_of_a_pair_tile() {
        let tile = Layout::row_major(DType::F32, &[4, 2]);
        let high = tile
            .slice(&[range(None, None), range(Some(1), Some(2))], S)
            .unwrap();
        assert_eq!(high.shape, vec![4, 1]);
        assert_eq!(high.strides, vec![8, 4]);
        assert_eq!(high.offset, 4);
        assert_eq!(high.byte_offset(&[3, 0]), 28);
    }

    #[test]
    fn u16_view_of_u32_puts_low_half_first() {
        let words = Layout::row_major(DType::U32, &[4, 1]);
        let halves = words.view(DType::U16, S).unwrap().unsqueeze(-1, S).unwrap();
        assert_eq!(halves.shape, vec![4, 2, 1]);
        assert_eq!(halves.byte_offset(&[1, 0, 0]), 4);
        assert_eq!(halves.byte_offset(&[1, 1, 0]), 6);
    }

    #[test]
    fn view_rejects_uneven_bytes_and_strided_axes() {
        let odd = Layout::row_major(DType::U16, &[4, 1]);
        let err = odd.view(DType::U32, S).unwrap_err();
        assert_eq!(
            err.message,
            "cannot view 1 x u16 (2 bytes) as `u32`: 2 is not a multiple of 4"
        );
        let strided = Layout::row_major(DType::F32, &[4, 4])
            .slice(
                &[
                    range(None, None),
                    SliceItem::Range {
                        start: None,
                        end: None,
                        step: 2,
                        span: S,
                    },
                ],
                S,
            )
            .unwrap();
        assert!(strided.view(DType::U16, S).is_err());
    }

    #[test]
    fn negative_indices_and_bounds() {
        let tile = Layout::row_major(DType::U8, &[3, 5]);
        let last_row = tile
            .slice(&[SliceItem::Index { index: -1, span: S }], S)
            .unwrap();
        assert_eq!(last_row.shape, vec![5]);
        assert_eq!(last_row.offset, 10);
        let err = tile
            .slice(&[SliceItem::Index { index: 3, span: S }], S)
            .unwrap_err();
        assert_eq!(
            err.message,
            "index 3 is out of bounds for axis 0 of extent 3"
        );
    }

    #[test]
    fn reshape_infers_and_checks_counts() {
        let tile = Layout::row_major(DType::F32, &[4, 2, 1]);
        assert_eq!(tile.reshape(&[4, -1], S).unwrap().shape, vec![4, 2]);
        assert_eq!(
            tile.reshape(&[3, 2], S).unwrap_err().message,
            "cannot reshape [4, 2, 1] (8 elements) into [3, 2] (6 elements)"
        );
    }
}
