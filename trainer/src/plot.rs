//! The loss curve as a PNG beside the net.
//!
//! Drawn without any text, so no font (and no fontconfig/freetype) is needed: blue is the
//! training loss, red the validation loss, x runs over superbatches, y from 0 to the largest
//! loss with a grey line every tenth of it. The numbers are in the CSV log.

use std::path::Path;

use plotters::prelude::*;
use wholefile::temporary_beside;

use crate::error::{Result, TrainerError};
use crate::history::Record;

const SIZE: (u32, u32) = (960, 540);

/// Drawn under a temporary name beside `path` (plotters writes by path), then renamed over it.
pub fn loss_curve(path: &Path, history: &[Record]) -> Result<()> {
    let temporary = temporary_beside(path, ".png").map_err(TrainerError::io(path))?;
    draw(temporary.path(), history).map_err(|e| TrainerError::Plot {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    temporary
        .as_file()
        .sync_all()
        .map_err(TrainerError::io(path))?;
    temporary
        .persist(path)
        .map_err(|e| TrainerError::io(path)(e.error))?;
    Ok(())
}

fn draw(path: &Path, history: &[Record]) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let first = history.first().map_or(0, |r| r.superbatch) as f64;
    let last = history.last().map_or(1, |r| r.superbatch) as f64;
    let top = history
        .iter()
        .flat_map(|r| [r.train_loss, r.validation_loss])
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.05;
    let right = if last > first { last } else { first + 1.0 };
    let mut chart = ChartBuilder::on(&root)
        .margin(24)
        .build_cartesian_2d(first..right, 0.0..top)?;
    for tenth in 1..=10 {
        let y = top / 1.05 * f64::from(tenth) / 10.0;
        chart.draw_series(LineSeries::new(
            [(first, y), (right, y)],
            RGBColor(220, 220, 220),
        ))?;
    }
    chart.draw_series(LineSeries::new([(first, 0.0), (right, 0.0)], BLACK))?;
    chart.draw_series(LineSeries::new([(first, 0.0), (first, top)], BLACK))?;
    let series = |loss: fn(&Record) -> f64| {
        history
            .iter()
            .filter(move |r| loss(r).is_finite())
            .map(move |r| (r.superbatch as f64, loss(r)))
    };
    chart.draw_series(LineSeries::new(
        series(|r| r.train_loss),
        BLUE.stroke_width(2),
    ))?;
    chart.draw_series(LineSeries::new(
        series(|r| r.validation_loss),
        RED.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}
