"""The demo's gazetteer and route model: deterministic travel times and fares between fixed Beijing places."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Literal

PlaceId = Literal[
    "guomao", "capital_airport_t3", "daxing_airport", "beijing_south_station",
    "zhongguancun", "forbidden_city", "olympic_park", "sanlitun",
]  # fmt: skip
TravelMode = Literal["taxi", "transit", "driving"]

PLACES: dict[str, tuple[str, float, float, str]] = {
    # id: (name, latitude, longitude, nearest subway station)
    "guomao": ("Guomao CBD", 39.9087, 116.4605, "Guomao"),
    "capital_airport_t3": ("Capital Airport T3", 40.0525, 116.6100, "Terminal 3"),
    "daxing_airport": ("Daxing Airport", 39.5098, 116.4105, "Daxing Airport"),
    "beijing_south_station": (
        "Beijing South Railway Station",
        39.8652,
        116.3786,
        "Beijing South Railway Station",
    ),
    "zhongguancun": ("Zhongguancun", 39.9836, 116.3164, "Zhongguancun"),
    "forbidden_city": ("Forbidden City (Meridian Gate)", 39.9139, 116.3972, "Tian'anmen East"),
    "olympic_park": ("Olympic Park", 40.0011, 116.3905, "Olympic Green"),
    "sanlitun": ("Sanlitun", 39.9334, 116.4551, "Tuanjiehu"),
}
PLACE_HELP = "; ".join(f"'{place_id}' = {name}" for place_id, (name, *_rest) in PLACES.items())
MODE_HELP = (
    "'taxi' = ride-hailing car, door to door, priced by distance; "
    "'transit' = subway and airport express, cheapest, includes walking to and from stations; "
    "'driving' = the user's own car, fuel and parking estimated."
)
# km/h on the road, fixed minutes (walking, parking, waiting), yuan: base fare and per km.
_MODES: dict[str, tuple[float, int, float, float]] = {
    "taxi": (32.0, 5, 13.0, 2.3),
    "transit": (38.0, 14, 3.0, 0.45),
    "driving": (34.0, 8, 10.0, 0.9),
}


@dataclass(frozen=True)
class Route:
    origin: str
    destination: str
    mode: str
    distance_km: float
    duration_minutes: int
    price_yuan: int
    departure_date: date | None

    @property
    def route_id(self) -> str:
        day = self.departure_date.isoformat() if self.departure_date else "any-day"
        return f"route_{self.origin}_{self.destination}_{self.mode}_{day}"

    def as_entity(self) -> dict[str, object]:
        origin_name, destination_name = PLACES[self.origin][0], PLACES[self.destination][0]
        entity: dict[str, object] = {
            "route_id": self.route_id,
            "entity_type": "route",
            "title": f"{origin_name} to {destination_name} by {self.mode}",
            "travel_mode": self.mode,
            "duration_minutes": self.duration_minutes,
            "distance_km": self.distance_km,
            "price_yuan": self.price_yuan,
            "summary": f"About {self.duration_minutes} min, {self.distance_km} km, about {self.price_yuan} yuan.",
            "steps": self.steps(),
            "deeplink": f"page/route?id={self.route_id}",
            # Card-only: not declared in the manifest, passed to the widget untouched, never shown to the model.
            "map_image_url": f"https://maps.example.com/static/{self.route_id}.png",
        }
        if self.departure_date is not None:
            entity["departure_date"] = self.departure_date.isoformat()
        return entity

    def steps(self) -> list[dict[str, object]]:
        origin, destination = PLACES[self.origin], PLACES[self.destination]
        if self.mode == "transit":
            ride = self.duration_minutes - 10
            return [
                {"instruction": f"Walk to {origin[3]} station", "minutes": 5},
                {"instruction": f"Subway from {origin[3]} to {destination[3]}", "minutes": ride},
                {"instruction": f"Walk to {destination[0]}", "minutes": 5},
            ]
        if self.mode == "taxi":
            return [
                {"instruction": f"Get in at the {origin[0]} pick-up point", "minutes": 5},
                {"instruction": f"Ride to {destination[0]}", "minutes": self.duration_minutes - 5},
            ]
        return [
            {
                "instruction": f"Drive from {origin[0]} to {destination[0]}",
                "minutes": self.duration_minutes - 8,
            },
            {"instruction": f"Park near {destination[0]}", "minutes": 8},
        ]


def plan(origin: str, destination: str, mode: str, departure_date: date | None = None) -> Route:
    """The deterministic route: road distance from the great-circle distance, time and fare from the mode."""
    _, lat1, lon1, _ = PLACES[origin]
    _, lat2, lon2, _ = PLACES[destination]
    distance = round(_haversine_km(lat1, lon1, lat2, lon2) * 1.3, 1)
    speed, fixed_minutes, base_fare, per_km = _MODES[mode]
    minutes = fixed_minutes + math.ceil(distance / speed * 60)
    price = math.ceil(base_fare + per_km * distance)
    return Route(origin, destination, mode, distance, minutes, price, departure_date)


def _haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(a))


def route_of(route_id: str) -> Route | None:
    """The route a `route_id` names (origin, destination, mode and day are all in it); None for any other id."""
    rest = route_id.removeprefix("route_")
    origin = next((place for place in PLACES if rest.startswith(f"{place}_")), None)
    rest = rest[len(origin) + 1 :] if origin else ""
    destination = next((place for place in PLACES if rest.startswith(f"{place}_")), None)
    rest = rest[len(destination) + 1 :] if destination else ""
    mode, _, day = rest.partition("_")
    if origin is None or destination is None or mode not in _MODES or origin == destination:
        return None
    try:
        departure = None if day == "any-day" else date.fromisoformat(day)
    except ValueError:
        return None
    route = plan(origin, destination, mode, departure)
    return route if route.route_id == route_id else None
