//! Location privacy: a member's location (their coordinates, else their city's seat) is snapped to
//! a grid of about 1 km before any distance is computed, and another member is only ever told a
//! [`DistanceBand`]. Two positions in one cell are indistinguishable to everything downstream, so
//! repeated queries from moved positions teach nothing finer than the grid.
//!
//! The grid: rows are 1/[`rules::GRID_STEPS_PER_DEGREE`] degree of latitude (1.00 km). Each row is
//! cut into columns of 1/(111 x cos φ) degree of longitude, φ being the latitude of the row's
//! centre, so every cell is about 1.0 km wide too, in Taiwan (about 0.9 x 0.01° there) as anywhere
//! else up to the polar circles; nearer the poles columns stop narrowing at 100 km. A point's cell
//! is found with `floor`, and its distances are measured between cell centres.
#![warn(missing_docs)]

use crate::catalogue;
use crate::reasons::code_catalogue;
use crate::rules;

/// A location within [`rules::LATITUDE`] and [`rules::LONGITUDE`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coordinates {
    /// Degrees north (negative: south).
    pub latitude: f64,
    /// Degrees east (negative: west).
    pub longitude: f64,
}

/// The mean Earth radius (IUGG), in km.
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Near the poles a row's columns would shrink to nothing: their width stops at 1/0.01 rows.
const MIN_COLUMN_SCALE: f64 = 0.01;

/// The southernmost and northernmost rows: latitude 90 belongs to the last row below it.
const MIN_ROW: i32 = -(90 * rules::GRID_STEPS_PER_DEGREE as i32);
const MAX_ROW: i32 = 90 * rules::GRID_STEPS_PER_DEGREE as i32 - 1;

/// A grid cell of about 1 km x 1 km: the only form in which a location takes part in matching.
/// The server may store `row` and `col` (rows also make a cheap first filter for a radius: a row
/// is 1.00 km), and rebuilds the point with [`GridPoint::from_cell`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridPoint {
    row: i32,
    col: i32,
}

/// Columns per degree of longitude in a row.
fn columns_per_degree(row: i32) -> f64 {
    let centre = (f64::from(row) + 0.5) / rules::GRID_STEPS_PER_DEGREE;
    rules::GRID_STEPS_PER_DEGREE * centre.to_radians().cos().max(MIN_COLUMN_SCALE)
}

/// The columns of a row cover longitudes -180 (inclusive) to 180 (exclusive).
fn column_range(row: i32) -> std::ops::RangeInclusive<i32> {
    let per_degree = columns_per_degree(row);
    let first = (-180.0 * per_degree).floor() as i32;
    let last = (180.0 * per_degree).ceil() as i32 - 1;
    first..=last
}

/// The cell of a location. Latitudes are clamped to ±90 and longitudes taken modulo 360, so every
/// finite coordinate has a cell (validated profiles only hold in-range ones).
pub fn snap(at: Coordinates) -> GridPoint {
    let latitude = if at.latitude.is_nan() {
        0.0
    } else {
        at.latitude.clamp(-90.0, 90.0)
    };
    let row = ((latitude * rules::GRID_STEPS_PER_DEGREE).floor() as i32).clamp(MIN_ROW, MAX_ROW);
    let longitude = if at.longitude.is_finite() {
        (at.longitude + 180.0).rem_euclid(360.0) - 180.0
    } else {
        0.0
    };
    let col = (longitude * columns_per_degree(row)).floor() as i32;
    let range = column_range(row);
    GridPoint {
        row,
        col: col.clamp(*range.start(), *range.end()),
    }
}

/// Where a member is for matching: their coordinates when they shared them, else the seat of
/// their city; `None` only for an unknown city code without coordinates.
pub fn home_point(coordinates: Option<Coordinates>, city: &str) -> Option<GridPoint> {
    let at = coordinates.or_else(|| {
        catalogue::city(city).map(|seat| Coordinates {
            latitude: seat.latitude,
            longitude: seat.longitude,
        })
    })?;
    Some(snap(at))
}

impl GridPoint {
    /// The cell with these indices, as stored; `None` for a row or column off the grid.
    pub fn from_cell(row: i32, col: i32) -> Option<GridPoint> {
        ((MIN_ROW..=MAX_ROW).contains(&row) && column_range(row).contains(&col))
            .then_some(GridPoint { row, col })
    }

    /// The row: latitude in steps of 1/111 degree, counted from the equator.
    pub fn row(self) -> i32 {
        self.row
    }

    /// The column within the row, counted from the prime meridian.
    pub fn col(self) -> i32 {
        self.col
    }

    /// The centre of the cell: what distances are measured from. Never sent to a client. The
    /// first and last cells of a row are cut by the antimeridian; their centre is the middle of
    /// what they cover, so it stays inside the cell (a centre past ±180 would wrap to the row's
    /// other end).
    pub fn centre(self) -> Coordinates {
        let per_degree = columns_per_degree(self.row);
        let west = (f64::from(self.col) / per_degree).max(-180.0);
        let east = (f64::from(self.col + 1) / per_degree).min(180.0);
        Coordinates {
            latitude: (f64::from(self.row) + 0.5) / rules::GRID_STEPS_PER_DEGREE,
            longitude: (west + east) / 2.0,
        }
    }

    /// The centre as a point on the unit sphere, which turns every later distance comparison
    /// into arithmetic without trigonometry.
    pub(crate) fn unit_vector(self) -> [f64; 3] {
        let centre = self.centre();
        let (lat, lon) = (centre.latitude.to_radians(), centre.longitude.to_radians());
        [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
    }

    /// The great-circle distance between the two cells' centres, in km.
    pub fn distance_km(self, other: GridPoint) -> f64 {
        arc_km(chord_squared(&self.unit_vector(), &other.unit_vector()))
    }
}

/// The squared straight-line distance between two points of the unit sphere.
pub(crate) fn chord_squared(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let (x, y, z) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    x * x + y * y + z * z
}

/// The great-circle distance of a squared chord, in km.
pub(crate) fn arc_km(chord_squared: f64) -> f64 {
    2.0 * EARTH_RADIUS_KM * (chord_squared.sqrt() / 2.0).min(1.0).asin()
}

/// The squared chord of a great-circle distance: comparing squared chords orders distances the
/// same way, without an `asin` per pair.
pub(crate) fn chord_squared_of_km(km: f64) -> f64 {
    let half_angle = (km / (2.0 * EARTH_RADIUS_KM)).min(std::f64::consts::FRAC_PI_2);
    let chord = 2.0 * half_angle.sin();
    chord * chord
}

/// Is a distance within a member's `recommendDistanceKm`? 0 means anywhere.
pub fn within_radius(km: f64, recommend_distance_km: u32) -> bool {
    recommend_distance_km == 0 || km <= f64::from(recommend_distance_km)
}

code_catalogue!(
    /// How far another member is, as they are told it: nothing finer ever leaves the server.
    DistanceBand, "distanceBand." {
        /// Less than 5 km.
        Under5Km = "UNDER_5_KM",
        /// 5 km up to (not including) 20 km.
        From5To20Km = "FROM_5_TO_20_KM",
        /// 20 km up to (not including) 50 km.
        From20To50Km = "FROM_20_TO_50_KM",
        /// 50 km or more.
        Over50Km = "OVER_50_KM",
    }
);

impl DistanceBand {
    /// The band of a distance; an edge ([`rules::DISTANCE_BAND_EDGES_KM`]) belongs to the band
    /// above it.
    pub fn of(km: f64) -> DistanceBand {
        let [near, middle, far] = rules::DISTANCE_BAND_EDGES_KM;
        if km < near {
            DistanceBand::Under5Km
        } else if km < middle {
            DistanceBand::From5To20Km
        } else if km < far {
            DistanceBand::From20To50Km
        } else {
            DistanceBand::Over50Km
        }
    }

    /// The band between two cells.
    pub fn between(a: GridPoint, b: GridPoint) -> DistanceBand {
        DistanceBand::of(a.distance_km(b))
    }

    /// The position of the band from near (0) to far (3).
    pub fn index(self) -> usize {
        match self {
            DistanceBand::Under5Km => 0,
            DistanceBand::From5To20Km => 1,
            DistanceBand::From20To50Km => 2,
            DistanceBand::Over50Km => 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(latitude: f64, longitude: f64) -> Coordinates {
        Coordinates {
            latitude,
            longitude,
        }
    }

    #[test]
    fn nearby_positions_in_one_cell_snap_to_the_same_point() {
        let cell = snap(at(25.0335, 121.5645));
        assert_eq!(snap(at(25.0339, 121.5649)), cell);
        assert_eq!(snap(cell.centre()), cell);
    }

    #[test]
    fn a_cell_is_about_one_kilometre_square_in_taiwan_and_far_north() {
        let km_per_degree = EARTH_RADIUS_KM * std::f64::consts::PI / 180.0;
        for latitude in [22.0, 25.0, 60.0] {
            let cell = snap(at(latitude, 121.0));
            let east = GridPoint::from_cell(cell.row(), cell.col() + 1).unwrap();
            let width = cell.distance_km(east);
            assert!((0.95..1.05).contains(&width), "{latitude}: {width}");
            // Columns of neighbouring rows do not line up, so the row above is measured on the
            // meridian: a step of 1/111 degree.
            let north = snap(at(latitude + 1.0 / 111.0, 121.0));
            assert_eq!(north.row(), cell.row() + 1);
            let height = (north.centre().latitude - cell.centre().latitude) * km_per_degree;
            assert!((0.95..1.05).contains(&height), "{latitude}: {height}");
        }
    }

    #[test]
    fn moving_inside_a_cell_changes_no_distance_to_anyone() {
        let other = snap(at(24.1477, 120.6736));
        let a = snap(at(25.03301, 121.56401));
        let b = snap(at(25.03349, 121.56449));
        assert_eq!(a, b);
        assert_eq!(a.distance_km(other), b.distance_km(other));
    }

    #[test]
    fn distances_are_great_circle_kilometres_between_cell_centres() {
        let taipei = home_point(None, "TPE").unwrap();
        let kaohsiung = home_point(None, "KHH").unwrap();
        let km = taipei.distance_km(kaohsiung);
        assert!((295.0..300.0).contains(&km), "{km}");
        assert_eq!(taipei.distance_km(taipei), 0.0);
    }

    #[test]
    fn the_home_point_is_the_coordinates_else_the_city_seat() {
        let shared = at(24.80, 120.97);
        assert_eq!(home_point(Some(shared), "TPE"), Some(snap(shared)));
        assert_eq!(home_point(None, "TPE"), Some(snap(at(25.0375, 121.5637))));
        assert_eq!(home_point(None, "XXX"), None);
    }

    #[test]
    fn the_poles_and_the_date_line_still_have_cells() {
        let north = snap(at(90.0, 10.0));
        assert_eq!(GridPoint::from_cell(north.row(), north.col()), Some(north));
        assert_eq!(snap(at(0.0, 180.0)), snap(at(0.0, -180.0)));
        let west = snap(at(0.0, -179.9999));
        assert_eq!(GridPoint::from_cell(west.row(), west.col()), Some(west));
        assert_eq!(GridPoint::from_cell(MAX_ROW + 1, 0), None);
        assert_eq!(GridPoint::from_cell(0, 1_000_000), None);
    }

    #[test]
    fn a_cell_cut_by_the_date_line_has_its_centre_inside_it() {
        // At -80° the row's last column covers only part of a cell; its centre used to lie past
        // 180° and snap to the row's first cell (the property test found it now and then).
        for latitude in [-80.0, -79.999, 0.0, 35.68, 60.0] {
            for longitude in [179.999_999_9, -180.0, 179.995] {
                let cell = snap(at(latitude, longitude));
                let centre = cell.centre();
                assert!((-180.0..180.0).contains(&centre.longitude), "{centre:?}");
                assert_eq!(snap(centre), cell, "{latitude} {longitude}");
            }
        }
    }

    #[test]
    fn a_band_edge_belongs_to_the_band_above() {
        assert_eq!(DistanceBand::of(0.0), DistanceBand::Under5Km);
        assert_eq!(DistanceBand::of(4.999), DistanceBand::Under5Km);
        assert_eq!(DistanceBand::of(5.0), DistanceBand::From5To20Km);
        assert_eq!(DistanceBand::of(19.999), DistanceBand::From5To20Km);
        assert_eq!(DistanceBand::of(20.0), DistanceBand::From20To50Km);
        assert_eq!(DistanceBand::of(50.0), DistanceBand::Over50Km);
        assert_eq!(DistanceBand::of(12_000.0), DistanceBand::Over50Km);
    }

    #[test]
    fn a_radius_of_zero_means_anywhere() {
        assert!(within_radius(9_000.0, 0));
        assert!(within_radius(30.0, 30));
        assert!(!within_radius(30.001, 30));
    }

    #[test]
    fn squared_chords_order_distances_like_kilometres() {
        for km in [0.5, 5.0, 49.9, 300.0, 500.0] {
            let back = arc_km(chord_squared_of_km(km));
            assert!((back - km).abs() < 1e-9, "{km} -> {back}");
        }
    }

    #[test]
    fn bands_travel_as_codes_with_translation_keys() {
        assert_eq!(
            serde_json::to_value(DistanceBand::From20To50Km).unwrap(),
            "FROM_20_TO_50_KM"
        );
        assert_eq!(DistanceBand::Under5Km.key(), "distanceBand.UNDER_5_KM");
        assert_eq!(DistanceBand::ALL.len(), 4);
    }
}
